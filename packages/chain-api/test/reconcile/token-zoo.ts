import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeDeployData, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { ChainConfig } from '../../src/chains/index.js';
import { compileContracts } from '../../src/devnet/index.js';
import { prng } from '../../src/devnet/prng.js';
import { rpcCall, send, waitReceipt } from '../indexer/random-workload.js';

/** Tokens whose balances move without (or besides) Transfer events, and a plain control. */
export interface TokenZoo {
  deployer: Hex;
  wallets: Hex[];
  /** Holds only plain tokens by events; the silent token credits it with no event naming it. */
  bystander: Hex;
  rebasing: Hex;
  reflection: Hex;
  wrapper: Hex;
  silent: Hex;
  plain: Hex;
  multicall3: Hex;
  /** Pooled amount of the rebasing token, tracked for `rebase`. */
  pooled: bigint;
}

const CONTRACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts');
const abi = parseAbi([
  'function mint(address to, uint256 amount)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function rebase(uint256 newPooled)',
  'function deposit() payable',
  'function withdraw(uint256 wad)',
  'function credit(address[] to, uint256 amount)',
  'function debit(address from, uint256 amount)',
  'function emitTransfer(address from, address to, uint256 value)',
  'function stake(uint256 wad)',
  'function unstake(uint256 wad)',
]);

async function deploy(url: string, from: Hex, name: string, args: unknown[]): Promise<Hex> {
  const own = await compileContracts({ contractsDir: CONTRACTS });
  const c = own[name] ?? (await compileContracts())[name];
  if (!c) throw new Error(`no contract ${name}`);
  const hash = await send(
    url,
    from,
    null,
    encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args }),
  );
  return ((await waitReceipt(url, hash)).contractAddress as Hex).toLowerCase() as Hex;
}

const call = (fn: string, args: unknown[] = []) =>
  encodeFunctionData({ abi, functionName: fn as 'mint', args: args as [Hex, bigint] });

/** Deploys the zoo (with or without Multicall3) and funds `walletCount` wallets. Needs automine. */
export async function deployZoo(url: string, walletCount: number, seed: number): Promise<TokenZoo> {
  await rpcCall(url, 'anvil_autoImpersonateAccount', [true]);
  const deployer = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Hex;
  const r = prng(seed);
  const wallets = Array.from({ length: walletCount }, (_, i) => {
    const hex = (BigInt(i + 7) * 0x9e3779b97f4a7c15n + BigInt(Math.floor(r() * 1e9))).toString(16);
    return `0x${hex.padStart(40, 'b').slice(-40)}` as Hex;
  });
  const zoo: TokenZoo = {
    deployer,
    wallets,
    bystander: '0x00000000000000000000000000000000000b7575' as Hex,
    rebasing: await deploy(url, deployer, 'RebasingShares', []),
    reflection: await deploy(url, deployer, 'ReflectionToken', [deployer]),
    wrapper: await deploy(url, deployer, 'WrapperClone', []),
    silent: await deploy(url, deployer, 'SilentCredit', []),
    plain: await deploy(url, deployer, 'PlainToken', []),
    multicall3: await deploy(url, deployer, 'Multicall3', []),
    pooled: 0n,
  };
  await send(url, deployer, zoo.plain, call('mint', [zoo.bystander, 10n ** 9n]));
  for (const w of wallets) {
    await rpcCall(url, 'anvil_setBalance', [w, '0x56bc75e2d63100000']); // 100 ETH
    const e18 = 10n ** 18n;
    await send(url, deployer, zoo.rebasing, call('mint', [w, 100n * e18]));
    zoo.pooled += 100n * e18;
    await send(url, deployer, zoo.reflection, call('transfer', [w, 10n ** 15n]));
    await send(url, deployer, zoo.silent, call('mint', [w, 50n * e18]));
    await send(url, deployer, zoo.plain, call('mint', [w, 10n ** 12n]));
    await send(url, w, zoo.wrapper, call('deposit'), e18);
  }
  return zoo;
}

/** The zoo's tokens, plain control last. */
export const zooTokens = (z: TokenZoo): Hex[] => [
  z.rebasing,
  z.reflection,
  z.wrapper,
  z.silent,
  z.plain,
];

/**
 * Plays `ops` seeded random actions, `perBlock` per mined block: transfers of every token
 * (some reverting), rebases up and down, reflection fees, wrapper deposits/withdrawals, silent
 * credits and debits, plain mints. Some blocks hold only a rebase or a silent credit (holders who
 * did nothing must still come out right).
 */
export async function playZoo(
  url: string,
  z: TokenZoo,
  opts: { seed: number; ops: number; perBlock?: number },
): Promise<void> {
  const r = prng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const perBlock = opts.perBlock ?? 3;
  const gas = 300_000n;
  const e15 = 10n ** 15n;
  await rpcCall(url, 'evm_setAutomine', [false]);
  for (let i = 0; i < opts.ops; i++) {
    const a = pick(z.wallets);
    const b = pick(z.wallets);
    const small = BigInt(1 + Math.floor(r() * 1000));
    const tx = (to: Hex, data: Hex, from: Hex = a, value = 0n) =>
      send(url, from, to, data, value, gas);
    switch (Math.floor(r() * 12)) {
      case 0:
        await tx(z.plain, call('transfer', [b, small * 1000n]));
        break;
      case 1:
        await tx(z.plain, call('mint', [b, small]), z.deployer);
        break;
      case 2:
        await tx(z.rebasing, call('transfer', [b, small * e15 * 10n]));
        break;
      case 3: {
        // Rewards or a slashing: -5% .. +7%.
        z.pooled = (z.pooled * BigInt(950 + Math.floor(r() * 120))) / 1000n;
        await tx(z.rebasing, call('rebase', [z.pooled]), z.deployer);
        break;
      }
      case 4:
        await tx(z.reflection, call('transfer', [b, small * 10n ** 9n]));
        break;
      case 5:
        await tx(z.wrapper, call('deposit'), a, small * e15);
        break;
      case 6:
        await tx(z.wrapper, call('withdraw', [small * e15]));
        break;
      case 7:
        await tx(z.wrapper, call('transfer', [b, small * e15]));
        break;
      case 8: {
        const some = [...z.wallets.filter(() => r() < 0.4), z.bystander];
        await tx(z.silent, call('credit', [some, small * e15]), z.deployer);
        break;
      }
      case 9:
        await tx(z.silent, call('debit', [a, small * e15 * 40n]), z.deployer);
        break;
      case 10:
        await tx(z.silent, call('transfer', [b, small * e15 * 30n]));
        break;
      case 11:
        // A transfer that must revert (more than any balance).
        await tx(z.plain, call('transfer', [b, 10n ** 30n]));
        break;
    }
    if ((i + 1) % perBlock === 0) await rpcCall(url, 'evm_mine', []);
  }
  await rpcCall(url, 'evm_mine', []);
  await rpcCall(url, 'evm_setAutomine', [true]);
}

/** A silent credit alone in its block: only holder re-reads can see it. */
export async function silentOnly(url: string, z: TokenZoo): Promise<void> {
  await send(
    url,
    z.deployer,
    z.silent,
    call('credit', [[...z.wallets, z.bystander], 7n * 10n ** 15n]),
  );
  z.pooled = (z.pooled * 1013n) / 1000n;
  await send(url, z.deployer, z.rebasing, call('rebase', [z.pooled]));
}

/** Chain config of the zoo's anvil: no wrapped native registered (the wrapper is unknown). */
export function zooChain(url: string, z: TokenZoo, over: Partial<ChainConfig> = {}): ChainConfig {
  return {
    chainId: 31337,
    name: 'devnet',
    tags: ['default', 'devnet'],
    nativeSymbol: 'ETH',
    nativeName: 'Ether',
    nativeDecimals: 18,
    rpcUrl: url,
    startBlock: 0n,
    finalityDepth: 64,
    stablecoins: [],
    multicall3: z.multicall3,
    uniswapV2Factories: [],
    uniswapV3Factories: [],
    ...over,
  };
}

/**
 * Deploys a token whose balanceOf reverts (then: a receives 5, a sends 9 to b by events) and a
 * non-token contract emitting Deposit/Withdrawal (a stakes 3, unstakes 1).
 */
export async function deployOdd(
  url: string,
  z: TokenZoo,
): Promise<{ unreadable: Hex; vault: Hex; a: Hex; b: Hex }> {
  const unreadable = await deploy(url, z.deployer, 'UnreadableBalance', []);
  const vault = await deploy(url, z.deployer, 'DepositEmitter', []);
  const [a, b] = z.wallets as [Hex, Hex];
  const x = (to: Hex, data: Hex, from: Hex = z.deployer) =>
    send(url, from, to, data).then((h) => waitReceipt(url, h));
  await x(unreadable, call('emitTransfer', [z.deployer, a, 5n]));
  await x(unreadable, call('emitTransfer', [a, b, 9n]));
  await x(vault, call('stake', [3n]), a);
  await x(vault, call('unstake', [1n]), a);
  return { unreadable, vault, a: a.toLowerCase() as Hex, b: b.toLowerCase() as Hex };
}
