import { type Abi, type Address, maxUint128 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, type DefiDevnet, startDefiDevnet } from './support/defi-devnet.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';

/**
 * DeFi positions on the devnet scenario (alice holds a v2 LP share, two v3 position NFTs and
 * ERC-4626 shares, plus odd contracts that are none), indexed into a real PostgreSQL. Every
 * amount is checked against the chain read independently at the same block: static calls of
 * the position manager's decreaseLiquidity/collect, the vault's convertToAssets, the pair's
 * reserves and supply.
 */

let s: DefiDevnet;
beforeAll(async () => {
  s = await startDefiDevnet();
}, 240_000);
afterAll(async () => {
  await s?.close();
});

const units = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;
const close = (got: unknown, want: number) => {
  expect(typeof got).toBe('number');
  expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(Math.abs(want) * 1e-12 + 1e-18);
};

describe('GET /v1/evm/defi/positions/{address}', () => {
  it("alice: one position of each kind, every amount equal to the chain's at the indexed block", async () => {
    const { wallets, defi, tokens } = s.devnet.manifest;
    const { res, body } = await s.get(`/v1/evm/defi/positions/${wallets.alice}`);
    expect(res.status).toBe(200);
    if (referenceAvailable()) assertMatchesReference('DefiPositionsResponse', body);
    const positions = body!.positions as Body[];
    expect(positions.map((p) => p.type).sort()).toEqual(['Erc4626', 'Nft', 'UniswapV2']);
    const client = s.pub;
    const read = <T>(address: Address, abi: Abi, functionName: string, args: unknown[] = []) =>
      client.readContract({ address, abi, functionName, args, blockNumber: s.block }) as Promise<T>;

    // ERC-4626: convertToAssets(balanceOf(alice)).
    const vault = positions.find((p) => p.type === 'Erc4626')!;
    const shares = await read<bigint>(defi.vault, s.abis.DevVault!, 'balanceOf', [wallets.alice]);
    const assets = await read<bigint>(defi.vault, s.abis.DevVault!, 'convertToAssets', [shares]);
    const redeem = await read<bigint>(defi.vault, s.abis.DevVault!, 'previewRedeem', [shares]);
    expect(assets).toBeGreaterThan(shares); // the vault earned yield
    const usdcPrice = (await s.priceOf(tokens.usdc.address))!;
    expect(vault).toMatchObject({
      chain: s.devnet.chain.name,
      chain_id: 31337,
      protocol: 'Unknown',
      token: { address: defi.vault, name: 'Sluice USDC Vault', symbol: 'svUSDC' },
      underlying_token: { address: tokens.usdc.address, symbol: 'USDC', decimals: 6 },
    });
    close(vault.balance, units(shares, 6));
    close(vault.underlying_token.holdings, units(assets, 6));
    close(vault.convert_to_assets, units(assets, 6));
    close(vault.preview_redeem, units(redeem, 6));
    close(vault.value_usd, units(assets, 6) * usdcPrice);
    close(vault.price_usd, (units(assets, 6) * usdcPrice) / units(shares, 6));

    // v2: reserves x balance / supply.
    const pair = positions.find((p) => p.type === 'UniswapV2')!;
    const pairAbi = s.abis.UniswapV2Pair!;
    const [lp, supply, reserves] = await Promise.all([
      read<bigint>(defi.v2Pair, pairAbi, 'balanceOf', [wallets.alice]),
      read<bigint>(defi.v2Pair, pairAbi, 'totalSupply'),
      read<readonly [bigint, bigint, number]>(defi.v2Pair, pairAbi, 'getReserves'),
    ]);
    expect(pair).toMatchObject({
      protocol: 'UniswapV2',
      pool: defi.v2Pair,
      lp_balance: `0x${lp.toString(16)}`,
    });
    close(pair.balance, units(lp, 18));
    let v2Value = 0;
    for (const side of [0, 1] as const) {
      const address = await read<string>(defi.v2Pair, pairAbi, side === 0 ? 'token0' : 'token1');
      const leg = pair[`token${side}`];
      const token = Object.values(tokens).find((x) => x.address === address.toLowerCase())!;
      const amount = (reserves[side] * lp) / supply;
      expect(leg).toMatchObject({
        address: token.address,
        symbol: token.symbol,
        decimals: token.decimals,
      });
      close(leg.holdings, units(amount, token.decimals));
      const price = await s.priceOf(token.address);
      expect(leg.price_usd).toBe(price);
      v2Value += units(amount, token.decimals) * (price ?? 0);
    }
    close(pair.value_usd, v2Value);
    close(pair.price_usd, v2Value / units(lp, 18));

    // v3: what decreaseLiquidity(all) and collect(max) would pay, simulated as alice.
    const nft = positions.find((p) => p.type === 'Nft')!;
    const pool = s.devnet.manifest.pools.wbtcWethV3;
    expect(nft).toMatchObject({
      protocol: 'UniswapV3',
      pool: pool.address,
      position_manager: defi.positionManager,
      fee: 3000,
      token0: { address: pool.token0 },
      token1: { address: pool.token1 },
    });
    expect(nft.positions).toHaveLength(2);
    const npm = s.abis.NonfungiblePositionManager!;
    const decimals = (a: string) => Object.values(tokens).find((x) => x.address === a)!.decimals;
    const [d0, d1] = [decimals(pool.token0), decimals(pool.token1)];
    const [p0, p1] = [(await s.priceOf(pool.token0))!, (await s.priceOf(pool.token1))!];
    let v3Value = 0;
    let earned = 0n;
    for (const expected of defi.v3Positions) {
      const tokenId = BigInt(expected.tokenId);
      const got = nft.positions.find((p: Body) => p.token_id === `0x${tokenId.toString(16)}`);
      const position = await read<readonly bigint[]>(defi.positionManager, npm, 'positions', [
        tokenId,
      ]);
      const liquidity = position[7]!;
      const call = (functionName: string, args: unknown[]) =>
        client.simulateContract({
          address: defi.positionManager,
          abi: npm,
          functionName,
          args,
          account: wallets.alice,
          blockNumber: s.block,
        });
      const { result: principal } = await call('decreaseLiquidity', [
        { tokenId, liquidity, amount0Min: 0n, amount1Min: 0n, deadline: 2n ** 40n },
      ]);
      const { result: fees } = await call('collect', [
        { tokenId, recipient: wallets.alice, amount0Max: maxUint128, amount1Max: maxUint128 },
      ]);
      const [a0, a1] = principal as [bigint, bigint];
      const [f0, f1] = fees as [bigint, bigint];
      const [, tick] = await read<readonly [bigint, number]>(
        pool.address,
        s.abis.UniswapV3Pool!,
        'slot0',
      );
      expect(got).toMatchObject({
        tick_lower: expected.tickLower,
        tick_upper: expected.tickUpper,
        liquidity: liquidity.toString(),
        in_range: expected.tickLower <= tick && tick < expected.tickUpper,
        token0: { price_usd: p0 },
        token1: { price_usd: p1 },
      });
      close(got.token0.holdings, units(a0, d0));
      close(got.token1.holdings, units(a1, d1));
      close(got.token0.rewards, units(f0, d0));
      close(got.token1.rewards, units(f1, d1));
      earned += f0 + f1;
      v3Value += units(a0 + f0, d0) * p0 + units(a1 + f1, d1) * p1;
    }
    expect(nft.positions.map((p: Body) => p.in_range)).toContain(true);
    expect(nft.positions.map((p: Body) => p.in_range)).toContain(false);
    expect(earned).toBeGreaterThan(0n); // the scenario's swaps paid the in-range position fees
    close(nft.value_usd, v3Value);

    close(body!.aggregations.total_value_usd, vault.value_usd + pair.value_usd + nft.value_usd);
    expect(Object.keys(body!.aggregations.total_by_chain)).toEqual(['31337']);
  });

  it('the lp wallet: a share of every v2 pair, unpriced legs counted as 0', async () => {
    const { wallets, pools } = s.devnet.manifest;
    const { body } = await s.get(`/v1/evm/defi/positions/${wallets.lp}`);
    if (referenceAvailable()) assertMatchesReference('DefiPositionsResponse', body);
    const pairs = (body!.positions as Body[]).filter((p) => p.type === 'UniswapV2');
    const v2 = Object.values(pools).filter((p) => p.type === 'uniswap_v2');
    expect(pairs.map((p) => p.pool).sort()).toEqual(v2.map((p) => p.address).sort());
    for (const p of pairs) {
      const lp = (await s.pub.readContract({
        address: p.pool,
        abi: s.abis.UniswapV2Pair!,
        functionName: 'balanceOf',
        args: [wallets.lp],
        blockNumber: s.block,
      })) as bigint;
      expect(p.lp_balance).toBe(`0x${lp.toString(16)}`);
    }
    // Sorted by value, largest first.
    const values = (body!.positions as Body[]).map((p) => p.value_usd as number);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    const scam = pairs.find((p) => p.pool === pools.scamUsdc.address)!;
    const scamLeg = scam.token0.symbol === 'SCAM' ? scam.token0 : scam.token1;
    expect(scamLeg).not.toHaveProperty('price_usd');
  });

  it('s.odd contracts are no positions: probed once, cached, never a crash', async () => {
    const { rows } = await s.t.db.query<{ address: string; result: string | null }>(
      `select address, result from contract_probes where chain_id = 31337 and probe = 'defi'`,
    );
    const probes = new Map(rows.map((r) => [r.address, r.result]));
    const { tokens, defi } = s.devnet.manifest;
    expect(probes.get(s.odd.reverting)).toBeNull();
    expect(probes.get(s.odd.halfPair)).toBeNull();
    expect(probes.get(s.odd.garbage)).toBeNull();
    expect(probes.get(s.odd.fakeManager)).toBeNull();
    // Looks like a vault, so it is one to the probe; its convertToAssets reverts: no position.
    expect(probes.get(s.odd.fakeVault)).toBe(`erc4626:${tokens.usdc.address}`);
    expect(probes.get(defi.vault)).toBe(`erc4626:${tokens.usdc.address}`);
    expect(probes.get(defi.positionManager)).toMatch(/^uniswap_v3_npm:0x/);
    expect(probes.get(tokens.usdc.address)).toBeNull();
    const { body } = await s.get(`/v1/evm/defi/positions/${s.devnet.manifest.wallets.alice}`, {
      'cache-control': 'no-cache',
    });
    const addresses = JSON.stringify(body);
    for (const a of Object.values(s.odd)) expect(addresses).not.toContain(a);
  });

  it('a wallet without positions, and one holding nothing at all', async () => {
    for (const wallet of [
      s.devnet.manifest.wallets.ivan,
      '0x000000000000000000000000000000000000dead',
    ]) {
      const { res, body } = await s.get(`/v1/evm/defi/positions/${wallet}`);
      expect(res.status).toBe(200);
      if (referenceAvailable()) assertMatchesReference('DefiPositionsResponse', body);
      expect(body).toEqual({
        positions: [],
        aggregations: { total_value_usd: 0, total_by_chain: {} },
      });
    }
  });

  it('without Multicall3 (no code at the configured address) every call goes alone, same answer', async () => {
    const url = await s.startApp({
      chain: { ...s.devnet.chain, multicall3: '0x000000000000000000000000000000000000beef' },
    });
    const path = `/v1/evm/defi/positions/${s.devnet.manifest.wallets.alice}`;
    const direct = await s.get(path, {}, url);
    const batched = await s.get(path, { 'cache-control': 'no-cache' });
    expect(direct.res.status).toBe(200);
    expect(direct.body).toEqual(batched.body);
  });

  it('ETag, response cache and compression as the other routes', async () => {
    const path = `/v1/evm/defi/positions/${s.devnet.manifest.wallets.alice}`;
    const first = await s.get(path, { 'accept-encoding': 'identity' });
    const second = await s.get(path, { 'accept-encoding': 'identity' });
    expect(second.res.headers.get('x-cache')).toBe('hit');
    expect(second.text).toBe(first.text);
    const etag = first.res.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    const revalidated = await s.get(path, { 'if-none-match': etag });
    expect(revalidated.res.status).toBe(304);
    const gz = await s.get(path, { 'accept-encoding': 'gzip' });
    expect(first.text.length).toBeGreaterThan(1024);
    expect(gz.res.headers.get('content-encoding')).toBe('gzip');
  });
});
