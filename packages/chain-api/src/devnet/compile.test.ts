import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestClient,
  encodePacked,
  getContractAddress,
  http,
  keccak256,
  parseEther,
  publicActions,
  walletActions,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from './anvil.js';
import { type CompiledContracts, compileContracts } from './compile.js';
import { ContractCompileError } from './errors.js';

let anvil: AnvilInstance;
let contracts: CompiledContracts;

beforeAll(async () => {
  [anvil, contracts] = await Promise.all([startAnvil(), compileContracts()]);
});
afterAll(async () => {
  await anvil?.stop();
});

function client() {
  return createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    .extend(publicActions)
    .extend(walletActions);
}

async function deploy(name: string, args: readonly unknown[] = []) {
  const c = client();
  const [account] = await c.getAddresses();
  const hash = await c.deployContract({
    abi: contracts[name]!.abi,
    bytecode: contracts[name]!.bytecode,
    args,
    account: account!,
    chain: null,
  });
  const receipt = await c.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return { address: receipt.contractAddress!, account: account! };
}

describe('compileContracts', () => {
  it('compiles every source contract and includes the Uniswap artifacts', () => {
    for (const name of [
      'DevToken',
      'SpamToken',
      'Bytes32MetadataToken',
      'RevertingMetadataToken',
      'WETH9',
      'Multicall3',
      'DevCollection',
      'OnchainCollection',
      'DevItems',
      'Marketplace',
      'V3Helper',
      'DevVault',
      'UniswapV2Factory',
      'UniswapV2Pair',
      'UniswapV2Router02',
      'UniswapV3Factory',
      'UniswapV3Pool',
      'NonfungiblePositionManager',
    ]) {
      const c = contracts[name];
      expect(c, name).toBeDefined();
      expect(c?.bytecode, name).toMatch(/^0x[0-9a-f]{100,}$/);
      expect(c?.deployedBytecode, name).toMatch(/^0x[0-9a-f]{100,}$/);
      expect(c?.abi.length, name).toBeGreaterThan(0);
    }
  });

  it('returns the cached result on later calls', async () => {
    const started = performance.now();
    const again = await compileContracts();
    expect(again).toBe(contracts); // memoized in-process
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('keeps the pair init code hash that Router02 hard-codes', () => {
    const initCodeHash = keccak256(contracts.UniswapV2Pair!.bytecode);
    expect(initCodeHash).toBe('0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f');
    expect(contracts.UniswapV2Router02!.bytecode).toContain(initCodeHash.slice(2));
  });

  it('keeps the v3 pool init code hash that the position manager hard-codes', () => {
    const initCodeHash = keccak256(contracts.UniswapV3Pool!.bytecode);
    expect(initCodeHash).toBe('0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54');
    expect(contracts.NonfungiblePositionManager!.bytecode).toContain(initCodeHash.slice(2));
  });

  it('reports solc errors and missing imports with the compiler message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-sol-'));
    writeFileSync(
      join(dir, 'Broken.sol'),
      'pragma solidity ^0.8.24;\nimport "@openzeppelin/contracts/nope/Missing.sol";\ncontract Broken { function f() public { undefinedThing(); } }\n',
    );
    const err = await compileContracts({ contractsDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractCompileError);
    expect((err as Error).message).toMatch(/solc failed[\s\S]*Missing\.sol/);
    const empty = mkdtempSync(join(tmpdir(), 'sluice-sol-'));
    await expect(compileContracts({ contractsDir: empty })).rejects.toThrow(/no \.sol files/);
  });
});

describe('compile cache', () => {
  it('compiles once for concurrent callers and recovers from a dead compiler lock', async () => {
    const src = mkdtempSync(join(tmpdir(), 'sluice-sol-'));
    writeFileSync(
      join(src, 'Tiny.sol'),
      'pragma solidity ^0.8.24;\ncontract Tiny { uint256 public x = 1; }\n',
    );
    const cache = mkdtempSync(join(tmpdir(), 'sluice-cache-'));
    {
      const [a, b] = await Promise.all([
        compileContracts({ contractsDir: src, cacheDir: cache }),
        compileContracts({ contractsDir: src, cacheDir: cache }),
      ]);
      expect(a.Tiny?.bytecode).toMatch(/^0x60/);
      expect(b.Tiny).toEqual(a.Tiny);
      const [cached] = readdirSync(cache).filter((f) => f.endsWith('.json'));
      expect(cached).toBeDefined();
      // A lock left by a process that died mid-compile must not block the next run.
      rmSync(join(cache, cached!));
      const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
      const lock = join(cache, cached!.replace(/\.json$/, '.lock'));
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(dead));
      const again = await compileContracts({ contractsDir: src, cacheDir: cache });
      expect(again.Tiny).toEqual(a.Tiny);
      expect(existsSync(lock)).toBe(false);
    }
  });
});

describe('compiled contracts on anvil', () => {
  it('WETH9 wraps and unwraps with Deposit/Withdrawal events', async () => {
    const c = client();
    const { address: weth, account } = await deploy('WETH9');
    const abi = contracts.WETH9!.abi;
    const dep = await c.writeContract({
      address: weth,
      abi,
      functionName: 'deposit',
      value: parseEther('2'),
      account,
      chain: null,
    });
    const depReceipt = await c.waitForTransactionReceipt({ hash: dep });
    expect(depReceipt.logs[0]?.topics[0]).toBe(
      keccak256(encodePacked(['string'], ['Deposit(address,uint256)'])),
    );
    const withdraw = await c.writeContract({
      address: weth,
      abi,
      functionName: 'withdraw',
      args: [parseEther('0.5')],
      account,
      chain: null,
    });
    // anvil can answer the send before it seals the block: read after the receipt.
    await c.waitForTransactionReceipt({ hash: withdraw });
    expect(
      await c.readContract({ address: weth, abi, functionName: 'balanceOf', args: [account] }),
    ).toBe(parseEther('1.5'));
    expect(await c.readContract({ address: weth, abi, functionName: 'totalSupply' })).toBe(
      parseEther('1.5'),
    );
  });

  it('Uniswap v2 router creates a pair at the address its library computes', async () => {
    const c = client();
    const { address: weth, account } = await deploy('WETH9');
    const { address: factory } = await deploy('UniswapV2Factory', [zeroAddress]);
    const { address: router } = await deploy('UniswapV2Router02', [factory, weth]);
    const { address: usdc } = await deploy('DevToken', ['USD Coin', 'USDC', 6, account]);
    const token = contracts.DevToken!.abi;
    await c.writeContract({
      address: usdc,
      abi: token,
      functionName: 'mint',
      args: [account, 10_000_000_000n],
      account,
      chain: null,
    });
    await c.writeContract({
      address: usdc,
      abi: token,
      functionName: 'approve',
      args: [router, 10_000_000_000n],
      account,
      chain: null,
    });
    const hash = await c.writeContract({
      address: router,
      abi: contracts.UniswapV2Router02!.abi,
      functionName: 'addLiquidityETH',
      args: [usdc, 3_000_000_000n, 0n, 0n, account, 2n ** 40n],
      value: parseEther('1'),
      account,
      chain: null,
    });
    expect((await c.waitForTransactionReceipt({ hash })).status).toBe('success');
    const pair = (await c.readContract({
      address: factory,
      abi: contracts.UniswapV2Factory!.abi,
      functionName: 'getPair',
      args: [usdc, weth],
    })) as `0x${string}`;
    const [t0, t1] = usdc.toLowerCase() < weth.toLowerCase() ? [usdc, weth] : [weth, usdc];
    const expected = getContractAddress({
      opcode: 'CREATE2',
      from: factory,
      salt: keccak256(encodePacked(['address', 'address'], [t0, t1])),
      bytecodeHash: keccak256(contracts.UniswapV2Pair!.bytecode),
    });
    expect(pair.toLowerCase()).toBe(expected.toLowerCase());
    const reserves = (await c.readContract({
      address: pair,
      abi: contracts.UniswapV2Pair!.abi,
      functionName: 'getReserves',
    })) as readonly [bigint, bigint, number];
    expect([reserves[0], reserves[1]].sort()).toEqual([3_000_000_000n, parseEther('1')].sort());
  });

  it('the bytes32 and reverting tokens behave as advertised', async () => {
    const c = client();
    const { address: b32, account } = await deploy('Bytes32MetadataToken', [
      zeroAddress.replace(/0$/, '1'),
      10n,
    ]);
    const symbol = await c.call({ to: b32, data: '0x95d89b41' }); // symbol()
    expect(symbol.data).toBe(`0x${Buffer.from('B32').toString('hex').padEnd(64, '0')}`);
    const { address: rvt } = await deploy('RevertingMetadataToken', [account, 10n]);
    await expect(c.call({ to: rvt, data: '0x95d89b41' })).rejects.toThrow(/no metadata/);
    await expect(c.call({ to: rvt, data: '0x313ce567' })).rejects.toThrow(/no metadata/); // decimals()
  });
});
