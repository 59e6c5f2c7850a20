import { createServer } from 'node:net';
import pino from 'pino';
import {
  type Abi,
  type Address,
  createPublicClient,
  erc20Abi,
  erc721Abi,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseUnits,
  toHex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getKnownChain } from '../chains/known-chains.js';
import { DEVNET_WALLET_NAMES, DEVNET_WALLETS, devnetAccount } from './accounts.js';
import { startAnvil } from './anvil.js';
import { type CompiledContracts, compileContracts } from './compile.js';
import { devnetChainConfig } from './devnet-chain.js';
import { AnvilStartError } from './errors.js';
import { type DevnetLogger, deployScenario } from './scenario.js';
import { type Devnet, startDevnet } from './start-devnet.js';
import { startTrickle } from './trickle.js';

let devnet: Devnet;
let contracts: CompiledContracts;
let client: ReturnType<typeof createPublicClient>;

// A pino logger is a DevnetLogger (checked by the type checker); collect what it writes.
const logLines: string[] = [];
const log: DevnetLogger = pino({ level: 'info' }, { write: (line: string) => logLines.push(line) });

beforeAll(async () => {
  [devnet, contracts] = await Promise.all([startDevnet({ log }), compileContracts()]);
  client = createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 });
});
afterAll(async () => {
  await devnet?.stop();
});

const read = <T>(address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []) =>
  client.readContract({ address, abi, functionName, args }) as Promise<T>;
const balanceOf = (token: Address, who: Address) =>
  read<bigint>(token, erc20Abi, 'balanceOf', [who]);
const ownerOf = (nft: Address, id: bigint) =>
  read<Address>(nft, erc721Abi, 'ownerOf', [id]).then((a) => a.toLowerCase());

describe('deployScenario via startDevnet', () => {
  it('deploys at the fixed addresses the 31337 registry entry carries', () => {
    const known = getKnownChain(31337)!;
    const m = devnet.manifest;
    expect(known.stablecoins).toEqual([m.tokens.usdc.address]);
    expect(known.wrappedNative).toBe(m.tokens.weth.address);
    expect(known.multicall3).toBe(m.contracts.multicall3);
    expect(known.uniswapV2Factories).toEqual([m.contracts.uniswapV2Factory]);
    expect(known.uniswapV3Factories).toEqual([m.contracts.uniswapV3Factory]);
    const chain = devnetChainConfig(m, devnet.rpcUrl, devnet.metadataUrl);
    expect(chain).toMatchObject({ chainId: 31337, name: 'devnet', tags: ['default', 'devnet'] });
    // Logos served by the devnet for ETH and its listed tokens.
    expect(chain.nativeLogoUrl).toBe(`${devnet.metadataUrl}logos/eth.svg`);
    expect(chain.tokens).toContainEqual({
      address: m.tokens.usdc.address,
      logo: `${devnet.metadataUrl}logos/usdc.svg`,
    });
    expect(devnet.chain).toEqual(chain);
    expect(devnet.chain.rpcUrl).toBe(devnet.rpcUrl);
  });

  it('logs its phases and readiness through the given logger', () => {
    const messages = logLines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toContain('devnet: scenario phase');
    expect(messages).toContain('devnet: scenario deployed');
    expect(messages.at(-1)).toBe('devnet: ready');
  });

  it('uses a dozen named wallets from the anvil mnemonic', () => {
    expect(DEVNET_WALLET_NAMES.length).toBeGreaterThanOrEqual(12);
    for (const name of DEVNET_WALLET_NAMES) {
      expect(devnetAccount(name).address.toLowerCase(), name).toBe(DEVNET_WALLETS[name]);
    }
    expect(devnet.manifest.wallets).toEqual(DEVNET_WALLETS);
  });

  it('spreads the scenario over ten days ending now', async () => {
    const m = devnet.manifest;
    const now = Date.now() / 1000;
    expect(m.timeline).toBe(true);
    expect(m.startTime).toBeLessThan(now - 9.9 * 86400);
    expect(Math.abs(m.endTime - now)).toBeLessThan(120);
    expect(m.events.slcDump!.timestamp).toBeLessThan(now - 24 * 3600);
    expect(m.events.slcBuy!.timestamp).toBeGreaterThan(now - 3600);
    const head = await client.getBlock();
    expect(Number(head.number)).toBe(m.endBlock);
    // Names the other owners rely on.
    for (const e of [
      'ethSale',
      'usdcSale',
      'wethSale',
      'batchSale',
      'freeTransfer',
      'erc1155Transfer',
      'erc1155BatchTransfer',
      'wethDeposit',
      'wethWithdraw',
      'swapV3',
      'spamAirdrop',
      'spamNftAirdrop',
      'metadataUpdate',
      'batchMetadataUpdate',
      'contractCall',
      'approve',
      'burn',
      'erc20Mint',
    ]) {
      expect(m.events[e], e).toBeDefined();
    }
  });

  it('leaves the ERC20 balances the scenario implies', async () => {
    const { tokens, wallets: w } = devnet.manifest;
    const usdc = tokens.usdc.address;
    expect(await balanceOf(usdc, w.carol)).toBe(parseUnits('50450.5', 6));
    expect(await balanceOf(usdc, w.frank)).toBe(parseUnits('48800', 6));
    expect(await balanceOf(usdc, w.erin)).toBe(parseUnits('49900', 6));
    expect(await balanceOf(usdc, w.bob)).toBe(parseUnits('48749.5', 6));
    expect(await balanceOf(tokens.slc.address, w.carol)).toBe(parseEther('8895'));
    // 5 wrapped - 2 unwrapped + what selling 0.1 WBTC on v3 returned (~2 WETH).
    const daveWeth = await balanceOf(tokens.weth.address, w.dave);
    expect(daveWeth > parseEther('4.9') && daveWeth < parseEther('5')).toBe(true);
    expect(await balanceOf(tokens.weth.address, w.grace)).toBe(parseEther('0.7'));
    expect(await balanceOf(tokens.scam.address, w.judy)).toBe(parseEther('1000000'));
    expect(await balanceOf(tokens.b32.address, w.alice)).toBe(parseEther('1500'));
    expect(await balanceOf(tokens.rvt.address, w.carol)).toBe(parseEther('7'));
    for (const r of [...devnet.manifest.airdropRecipients, w.alice]) {
      expect(await balanceOf(tokens.spam.address, r)).toBe(parseEther('5000'));
    }
    expect(devnet.manifest.airdropRecipients).toHaveLength(30);
  });

  it('has liquid, illiquid and manipulable pools', async () => {
    const { pools, tokens } = devnet.manifest;
    const pairAbi = contracts.UniswapV2Pair!.abi;
    const reserves = async (pool: Address) => {
      const [r0, r1] = await read<[bigint, bigint, number]>(pool, pairAbi, 'getReserves');
      return [r0, r1] as const;
    };
    const [u0, u1] = await reserves(pools.usdcWeth.address);
    const [usdcR, wethR] = pools.usdcWeth.token0 === tokens.usdc.address ? [u0, u1] : [u1, u0];
    const ethUsd = Number(usdcR) / 1e6 / (Number(wethR) / 1e18);
    expect(ethUsd).toBeGreaterThan(2900);
    expect(ethUsd).toBeLessThan(3100);
    expect(Number(usdcR) / 1e6).toBeGreaterThan(1_000_000);
    const [s0, s1] = await reserves(pools.scamUsdc.address);
    const scamR = pools.scamUsdc.token0 === tokens.scam.address ? s0 : s1;
    expect(scamR).toBe(1n);
    expect(s0 + s1).toBe(1n + parseUnits('5', 6));
    const [i0, i1] = await reserves(pools.ilqWeth.address);
    const ilqWeth = pools.ilqWeth.token0 === tokens.weth.address ? i0 : i1;
    expect(Number(ilqWeth) / 1e18).toBeGreaterThan(0.3);
    expect(Number(ilqWeth) / 1e18).toBeLessThan(0.32);
    const poolAbi = contracts.UniswapV3Pool!.abi;
    expect(await read<bigint>(pools.wbtcWethV3.address, poolAbi, 'liquidity')).toBeGreaterThan(0n);
    const factory = await read<Address>(pools.wbtcWethV3.address, poolAbi, 'factory');
    expect(factory.toLowerCase()).toBe(devnet.manifest.contracts.uniswapV3Factory);
    // The v3 swap emitted a Swap event.
    const receipt = await client.getTransactionReceipt({
      hash: devnet.manifest.events.swapV3!.txHash,
    });
    expect(parseEventLogs({ abi: poolAbi, logs: receipt.logs, eventName: 'Swap' })).toHaveLength(1);
  });

  it('moves NFTs through sales, a free transfer and a burn', async () => {
    const { nfts, wallets: w } = devnet.manifest;
    const punks = nfts.punks.address;
    expect(await ownerOf(punks, 1n)).toBe(w.erin);
    expect(await ownerOf(punks, 2n)).toBe(w.grace);
    expect(await ownerOf(punks, 3n)).toBe(w.frank);
    expect(await ownerOf(punks, 4n)).toBe(w.heidi);
    expect(await ownerOf(punks, 5n)).toBe(w.heidi);
    expect(await ownerOf(punks, 6n)).toBe(w.ivan);
    await expect(ownerOf(punks, 7n)).rejects.toThrow();
    expect(await ownerOf(nfts.spam.address, 1n)).toBe(w.alice);
    const lastRecipient = devnet.manifest.airdropRecipients.at(-1)!;
    expect(await read<bigint>(nfts.spam.address, erc721Abi, 'balanceOf', [lastRecipient])).toBe(1n);

    const items = nfts.items.address;
    const itemAbi = contracts.DevItems!.abi;
    const bal = (who: Address, id: bigint) => read<bigint>(items, itemAbi, 'balanceOf', [who, id]);
    expect(await bal(w.alice, 1n)).toBe(85n);
    expect(await bal(w.carol, 1n)).toBe(10n);
    expect(await bal(w.erin, 1n)).toBe(5n);
    expect(await bal(w.bob, 2n)).toBe(3n);
    expect(await bal(w.dave, 2n)).toBe(2n);
    expect(await bal(w.dave, 3n)).toBe(1n);
  });

  it('pays the seller in the same transaction as each sale', async () => {
    const { sales, wallets: w, tokens } = devnet.manifest;
    expect(sales.map((s) => s.paymentToken)).toEqual([
      'native',
      tokens.usdc.address,
      tokens.weth.address,
      'native',
      tokens.usdc.address,
    ]);
    const batch = sales[3]!;
    expect(batch.tokenIds).toEqual(['4', '5']);
    expect(batch.pricePerToken).toBe(parseEther('0.5').toString());
    for (const sale of sales) {
      const receipt = await client.getTransactionReceipt({ hash: sale.txHash });
      expect(receipt.blockNumber).toBe(BigInt(sale.blockNumber));
      if (sale.paymentToken !== 'native') {
        const paid = parseEventLogs({
          abi: erc20Abi,
          logs: receipt.logs,
          eventName: 'Transfer',
        }).filter(
          (l) => l.address === sale.paymentToken && l.args.to.toLowerCase() === sale.seller,
        );
        expect(paid.map((l) => l.args.value)).toEqual([BigInt(sale.totalPrice)]);
      } else {
        // The ether reaches the seller as an internal transfer from the marketplace.
        const trace = (await client.request({
          method: 'debug_traceTransaction' as 'eth_call',
          params: [sale.txHash, { tracer: 'callTracer' }] as never,
        })) as unknown as { calls?: { to: string; value?: string }[] };
        const payout = trace.calls?.find((c) => c.to.toLowerCase() === sale.seller && c.value);
        expect(BigInt(payout!.value!)).toBe(BigInt(sale.totalPrice));
      }
    }
    expect(sales[0]!.seller).toBe(w.alice);
  });

  it('serves NFT metadata: http, data: URIs, broken, and ERC-4906 updates', async () => {
    const { nfts } = devnet.manifest;
    const uri = (nft: Address, id: bigint) =>
      read<string>(nft, contracts.DevCollection!.abi, 'tokenURI', [id]);
    expect(await uri(nfts.punks.address, 1n)).toBe(`${devnet.metadataUrl}punks/1`);
    const doc = (await (await fetch(await uri(nfts.punks.address, 1n))).json()) as { name: string };
    expect(doc.name).toBe('Sluice Punk #1');
    expect(await uri(nfts.punks.address, 8n)).toBe(`${devnet.metadataUrl}punks/8-v2`);
    const shape = await uri(nfts.shapes.address, 1n);
    expect(shape).toMatch(/^data:application\/json;base64,/);
    const decoded = JSON.parse(Buffer.from(shape.split(',')[1]!, 'base64').toString()) as {
      name: string;
    };
    expect(decoded.name).toBe('Shape 1');
    expect(await uri(nfts.shapes.address, 2n)).toMatch(
      /^data:application\/json;utf8,\{"name":"Shape 2"/,
    );
    expect((await fetch(await uri(nfts.broken.address, 2n))).status).toBe(404);
    const itemUri = await read<string>(nfts.items.address, contracts.DevItems!.abi, 'uri', [1n]);
    const itemUrl = itemUri.replace('{id}', 1n.toString(16).padStart(64, '0'));
    expect(((await (await fetch(itemUrl)).json()) as { name: string }).name).toBe('Sword');
    const update = await client.getTransactionReceipt({
      hash: devnet.manifest.events.metadataUpdate!.txHash,
    });
    expect(update.logs[0]?.topics[0]).toBe(keccak256(toHex('MetadataUpdate(uint256)')));
    const batch = await client.getTransactionReceipt({
      hash: devnet.manifest.events.batchMetadataUpdate!.txHash,
    });
    expect(batch.logs[0]?.topics[0]).toBe(keccak256(toHex('BatchMetadataUpdate(uint256,uint256)')));
  });

  it('has Multicall3 at the canonical address', async () => {
    const { tokens, wallets: w } = devnet.manifest;
    const results = await client.multicall({
      multicallAddress: devnet.manifest.contracts.multicall3,
      contracts: [
        { address: tokens.usdc.address, abi: erc20Abi, functionName: 'decimals' },
        { address: tokens.rvt.address, abi: erc20Abi, functionName: 'symbol' },
        { address: tokens.usdc.address, abi: erc20Abi, functionName: 'balanceOf', args: [w.carol] },
      ],
    });
    expect(results[0]).toEqual({ status: 'success', result: 6 });
    expect(results[1]?.status).toBe('failure');
    expect(results[2]?.result).toBe(parseUnits('50450.5', 6));
  });

  it('trickles seeded activity and stops cleanly', async () => {
    const before = await client.getBlockNumber();
    const trickle = startTrickle(devnet.rpcUrl, devnet.manifest, {
      intervalMs: 20,
      seed: 7,
      contracts,
    });
    const deadline = Date.now() + 10_000;
    while (trickle.count() < 5 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await trickle.stop();
    const sent = trickle.count();
    expect(sent).toBeGreaterThanOrEqual(5);
    const after = await client.getBlockNumber();
    // One block per transaction (automine); a failed action mines at most one reverted block.
    expect(after - before >= BigInt(sent)).toBe(true);
    expect(after - before <= BigInt(sent + trickle.failures())).toBe(true);
    // Nothing after stop(): a second trickle at the same interval sends a few transactions (the
    // stopped one would have had as many turns meanwhile), and only its blocks appear.
    const marker = startTrickle(devnet.rpcUrl, devnet.manifest, {
      intervalMs: 20,
      seed: 8,
      contracts,
    });
    while (marker.count() < 3 && Date.now() < deadline + 10_000)
      await new Promise((r) => setTimeout(r, 20));
    await marker.stop();
    expect(marker.count()).toBeGreaterThanOrEqual(3);
    expect(trickle.count()).toBe(sent);
    const last = await client.getBlockNumber();
    expect(last - after <= BigInt(marker.count() + marker.failures())).toBe(true);
  });
});

describe('deployScenario on a chain without history', () => {
  it('plays everything at the current time, at the same addresses', async () => {
    const anvil = await startAnvil();
    try {
      const m = await deployScenario(anvil.rpcUrl, { contracts });
      const now = Date.now() / 1000;
      expect(m.timeline).toBe(false);
      expect(Math.abs(m.startTime - now)).toBeLessThan(120);
      expect(m.endTime - m.startTime).toBeLessThan(120);
      expect(m.metadataBaseUrl).toBe('http://devnet-metadata.invalid/');
      expect(m.tokens).toEqual(devnet.manifest.tokens);
      expect(m.pools).toEqual(devnet.manifest.pools);
      expect(m.sales.map((x) => x.totalPrice)).toEqual(
        devnet.manifest.sales.map((x) => x.totalPrice),
      );
      expect(await createPublicClient({ transport: http(anvil.rpcUrl) }).getBlockNumber()).toBe(
        BigInt(m.endBlock),
      );
    } finally {
      await anvil.stop();
    }
  });
});

describe('bad inputs', () => {
  it('fails clearly when the RPC URL does not answer', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    server.close();
    await expect(deployScenario(`http://127.0.0.1:${port}`, { contracts })).rejects.toThrow(
      /HTTP request failed|fetch failed|ECONNREFUSED/,
    );
  });

  it('startDevnet rejects a port in use and cleans up', async () => {
    await expect(startDevnet({ port: devnet.port })).rejects.toBeInstanceOf(AnvilStartError);
  });
});
