/**
 * A benchmark history shaped like a busy real chain, built once per size and cached as an anvil
 * state dump: 32 transactions per block from 1,000 wallets (plus recipients that appear over
 * time), most with one to three events (ERC20 transfers, approvals, router-style payments with an
 * internal ETH transfer, two-token swaps, three-recipient batches), plain native transfers, ETH
 * splits through a contract (internal transfers only) and about 1% heavy batch transfers of 50 to
 * 150 recipients. Generation stops once `events` ERC20 Transfer events exist; the manifest holds
 * the exact count per block (read back with eth_getLogs), so a run's progress converts to events.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem';
import { TOPIC } from '../src/decode/index.js';
import { compileContracts } from '../src/devnet/compile.js';
import { type AnvilInstance, startAnvil } from '../src/devnet/index.js';
import { prng } from '../src/devnet/prng.js';
import { compileBenchContracts, hubAbi, tokenAbi } from './realistic-contracts.js';

/** Bump when the generator changes: older cached histories are rebuilt. */
const VERSION = 1;
/** Transactions per block unless asked otherwise (a busy chain). */
const TX_PER_BLOCK = 32;
const WALLETS = 1_000;
const MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';

export interface HistoryManifest {
  version: number;
  /** Requested ERC20 Transfer events. */
  target: number;
  /** ERC20 Transfer events on the chain (3-topic Transfer logs of the bench tokens). */
  transfers: number;
  /** All logs on the chain. */
  logs: number;
  head: number;
  txs: number;
  tokens: Hex[];
  hub: Hex;
  /** `cumulative[b]`: Transfer events in blocks 0..b. */
  cumulative: number[];
  buildSeconds: number;
}

export interface History {
  anvil: AnvilInstance;
  manifest: HistoryManifest;
  /** Where the state dump lives (reused by later runs). */
  statePath: string;
}

const defaultCacheDir = join(dirname(fileURLToPath(import.meta.url)), '.cache');

/**
 * Starts anvil on the cached history of `events` Transfer events, building it first when missing.
 *
 * @example
 * const { anvil, manifest } = await openHistory({ events: 100_000 });
 */
export async function openHistory(opts: {
  events: number;
  /** Transactions per block after the setup (default 32; 1-2 is a quiet chain or anvil's automine). */
  txPerBlock?: number;
  cacheDir?: string;
  log?: (line: string) => void;
}): Promise<History> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const dir = opts.cacheDir ?? process.env.SLUICE_BENCH_CACHE ?? defaultCacheDir;
  mkdirSync(dir, { recursive: true });
  const txPerBlock = opts.txPerBlock ?? TX_PER_BLOCK;
  const shape = txPerBlock === TX_PER_BLOCK ? '' : `-tpb${txPerBlock}`;
  const base = join(dir, `realistic-v${VERSION}-${opts.events}${shape}`);
  const statePath = `${base}.state.json`;
  const manifestPath = `${base}.manifest.json`;
  if (!existsSync(statePath) || !existsSync(manifestPath)) {
    log(
      `history: building ${opts.events} Transfer events, ${txPerBlock} txs per block (cached in ${dir}) ...`,
    );
    const partial = `${base}.partial.json`;
    rmSync(partial, { force: true });
    // anvil writes the dump when it exits; a big chain takes a while to serialize. The build reads
    // only the latest state, so anvil need not keep a snapshot of it per block; the dump holds
    // blocks, transactions and their traces either way. (A 1M build still slows down: anvil
    // recomputes the whole state root per block, and the state grows.)
    const anvil = await startAnvil({
      args: ['--dump-state', partial, '--prune-history'],
      stopGraceMs: 900_000,
    });
    let manifest: HistoryManifest;
    try {
      manifest = await buildHistory(anvil.rpcUrl, opts.events, txPerBlock, log);
    } catch (error) {
      await anvil.stop();
      rmSync(partial, { force: true });
      throw error;
    }
    await anvil.stop();
    if (!existsSync(partial)) throw new Error('anvil did not write its state dump');
    renameSync(partial, statePath);
    writeFileSync(manifestPath, JSON.stringify(manifest));
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as HistoryManifest;
  const anvil = await startAnvil({ args: ['--load-state', statePath], timeoutMs: 600_000 });
  const head = Number(BigInt(await rpc<string>(anvil.rpcUrl, 'eth_blockNumber')));
  if (head !== manifest.head) {
    await anvil.stop();
    throw new Error(`cached history ${statePath}: head ${head}, manifest says ${manifest.head}`);
  }
  return { anvil, manifest, statePath };
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const [r] = await rpcBatch<T>(url, [{ method, params }]);
  return r as T;
}

async function rpcBatch<T>(url: string, calls: { method: string; params: unknown[] }[]) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }))),
  });
  const body = (await res.json()) as { id: number; result?: T; error?: { message: string } }[];
  const out: T[] = new Array(calls.length);
  for (const r of body) {
    if (r.error) throw new Error(`${calls[r.id]?.method}: ${r.error.message}`);
    out[r.id] = r.result as T;
  }
  return out;
}

interface Tx {
  from: Hex;
  to: Hex;
  data?: Hex;
  value?: bigint;
  gas: bigint;
}

async function buildHistory(
  url: string,
  target: number,
  txPerBlock: number,
  log: (line: string) => void,
): Promise<HistoryManifest> {
  const t0 = Date.now();
  const r = prng(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const hex = (n: bigint | number) => `0x${n.toString(16)}`;
  const wallets = Array.from(
    { length: WALLETS },
    (_, i) => `0x${(0xa11ce00000n + BigInt(i)).toString(16).padStart(40, '0')}` as Hex,
  );
  let fresh = 0;
  // One recipient in ten is an address never seen before: holders keep growing, as on real chains.
  const recipient = (): Hex =>
    r() < 0.1
      ? (`0x${(0xf4e500000000n + BigInt(fresh++)).toString(16).padStart(40, '0')}` as Hex)
      : pick(wallets);
  const nonces = new Map<string, number>();
  const [deployer] = await rpc<Hex[]>(url, 'eth_accounts');
  if (!deployer) throw new Error('anvil has no accounts');

  await rpc(url, 'anvil_autoImpersonateAccount', [true]);
  const { Multicall3 } = await compileContracts();
  if (Multicall3) await rpc(url, 'anvil_setCode', [MULTICALL3, Multicall3.deployedBytecode]);
  await rpcBatch(
    url,
    wallets.map((w) => ({ method: 'anvil_setBalance', params: [w, hex(10n ** 24n)] })),
  );
  const code = await compileBenchContracts();
  const deploy = async (data: Hex): Promise<Hex> => {
    const hash = await rpc<Hex>(url, 'eth_sendTransaction', [{ from: deployer, data }]);
    // anvil may answer the send before it seals the block.
    for (let i = 0; i < 200; i++) {
      const r = await rpc<{ contractAddress: Hex } | null>(url, 'eth_getTransactionReceipt', [
        hash,
      ]);
      if (r) return r.contractAddress;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no receipt for deployment ${hash}`);
  };
  const tokens: Hex[] = [];
  for (const [n, s] of [
    ['Bench USD', 'BUSD'],
    ['Bench Wrapped', 'BWR'],
    ['Bench Gov', 'BGOV'],
    ['Bench Meme', 'BMEME'],
  ] as const) {
    tokens.push(
      await deploy(encodeDeployData({ abi: tokenAbi, bytecode: code.token, args: [n, s] }) as Hex),
    );
  }
  const hub = await deploy(code.hub);
  await rpc(url, 'evm_setAutomine', [false]);
  nonces.set(
    deployer,
    Number(BigInt(await rpc<string>(url, 'eth_getTransactionCount', [deployer, 'latest']))),
  );

  let transfers = 0;
  let txCount = 0;
  let queue: Tx[] = [];
  const mine = async () => {
    const calls = queue.map((t) => {
      const nonce = nonces.get(t.from) ?? 0;
      nonces.set(t.from, nonce + 1);
      return {
        method: 'eth_sendTransaction',
        params: [
          {
            from: t.from,
            to: t.to,
            data: t.data ?? '0x',
            value: hex(t.value ?? 0n),
            gas: hex(t.gas),
            nonce: hex(nonce),
          },
        ],
      };
    });
    if (calls.length) await rpcBatch(url, calls);
    await rpc(url, 'evm_mine');
    txCount += queue.length;
    queue = [];
  };
  const push = async (tx: Tx) => {
    queue.push(tx);
    if (queue.length >= txPerBlock) await mine();
  };
  const amount = () => BigInt(1 + Math.floor(r() * 1e9)) * 10n ** 9n;

  // Setup: tokens to every wallet and the hub (mint events are Transfers too), approvals of the hub.
  for (const token of tokens) {
    const holders = [...wallets, hub];
    for (let i = 0; i < holders.length; i += 200) {
      const to = holders.slice(i, i + 200);
      const data = encodeFunctionData({
        abi: tokenAbi,
        functionName: 'mintMany',
        args: [to, 10n ** 30n],
      });
      await push({ from: deployer, to: token, data, gas: 60_000n * BigInt(to.length) });
      await mine(); // one per block: 200 mints take 12M gas
      transfers += to.length;
    }
  }
  await mine();
  const max = 2n ** 256n - 1n;
  for (const w of wallets) {
    for (const token of tokens) {
      const data = encodeFunctionData({ abi: tokenAbi, functionName: 'approve', args: [hub, max] });
      await push({ from: w, to: token, data, gas: 80_000n });
    }
  }
  await mine();

  let lastLog = Date.now();
  while (transfers < target) {
    const from = pick(wallets);
    const token = pick(tokens);
    const k = r() * 100;
    if (k < 30) {
      const data = encodeFunctionData({
        abi: tokenAbi,
        functionName: 'transfer',
        args: [recipient(), amount()],
      });
      await push({ from, to: token, data, gas: 80_000n });
      transfers += 1;
    } else if (k < 50) {
      await push({ from, to: recipient(), value: amount(), gas: 21_000n });
    } else if (k < 62) {
      const data = encodeFunctionData({
        abi: hubAbi,
        functionName: 'pay',
        args: [token, recipient(), amount()],
      });
      await push({ from, to: hub, data, value: amount(), gas: 160_000n });
      transfers += 1;
    } else if (k < 72) {
      const data = encodeFunctionData({
        abi: tokenAbi,
        functionName: 'approve',
        args: [pick(wallets), amount()],
      });
      await push({ from, to: token, data, gas: 80_000n });
    } else if (k < 82) {
      const out = pick(tokens.filter((t) => t !== token));
      const data = encodeFunctionData({
        abi: hubAbi,
        functionName: 'swap',
        args: [token, out, amount()],
      });
      // Half the swaps pay ETH back to the sender (an internal transfer).
      await push({ from, to: hub, data, value: r() < 0.5 ? amount() : 0n, gas: 200_000n });
      transfers += 2;
    } else if (k < 90) {
      const to = [recipient(), recipient(), recipient()];
      const data = encodeFunctionData({
        abi: tokenAbi,
        functionName: 'batchTransfer',
        args: [to, amount()],
      });
      await push({ from, to: token, data, gas: 200_000n });
      transfers += 3;
    } else if (k < 99) {
      const to = Array.from({ length: 2 + Math.floor(r() * 3) }, recipient);
      const data = encodeFunctionData({ abi: hubAbi, functionName: 'split', args: [to] });
      await push({ from, to: hub, data, value: amount() * BigInt(to.length), gas: 250_000n });
    } else {
      const n = 50 + Math.floor(r() * 101);
      const to = Array.from({ length: n }, recipient);
      const data = encodeFunctionData({
        abi: tokenAbi,
        functionName: 'batchTransfer',
        args: [to, amount()],
      });
      await push({ from, to: token, data, gas: 40_000n * BigInt(n) + 60_000n });
      transfers += n;
    }
    if (Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      log(`history: ${transfers}/${target} Transfer events, ${txCount} txs`);
    }
  }
  await mine();
  // A block full by gas leaves transactions in the pool: mine until it is empty.
  for (;;) {
    const pool = await rpc<{ pending: string; queued: string }>(url, 'txpool_status');
    if (Number(BigInt(pool.pending)) + Number(BigInt(pool.queued)) === 0) break;
    await rpc(url, 'evm_mine');
  }
  await rpc(url, 'evm_setAutomine', [true]);
  const head = Number(BigInt(await rpc<string>(url, 'eth_blockNumber')));
  const counted = await countTransfers(url, head, tokens);
  if (counted.transfers !== transfers) {
    throw new Error(
      `history: expected ${transfers} Transfer events, the chain has ${counted.transfers} (a transaction failed)`,
    );
  }
  const buildSeconds = (Date.now() - t0) / 1000;
  log(
    `history: ${head + 1} blocks, ${txCount} txs, ${transfers} Transfer events (${buildSeconds.toFixed(0)} s)`,
  );
  return { version: VERSION, target, ...counted, head, txs: txCount, tokens, hub, buildSeconds };
}

/** Transfer events per block (eth_getLogs), all logs counted too. */
async function countTransfers(url: string, head: number, tokens: Hex[]) {
  const perBlock = new Array<number>(head + 1).fill(0);
  const ours = new Set(tokens.map((t) => t.toLowerCase()));
  let logs = 0;
  for (let from = 0; from <= head; from += 1000) {
    const to = Math.min(head, from + 999);
    const list = await rpc<{ address: string; topics: string[]; blockNumber: string }[]>(
      url,
      'eth_getLogs',
      [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` }],
    );
    logs += list.length;
    for (const l of list) {
      if (l.topics[0] !== TOPIC.transfer || l.topics.length !== 3) continue;
      if (!ours.has(l.address.toLowerCase())) continue;
      const b = Number(BigInt(l.blockNumber));
      perBlock[b] = (perBlock[b] ?? 0) + 1;
    }
  }
  const cumulative: number[] = [];
  let sum = 0;
  for (const n of perBlock) {
    sum += n;
    cumulative.push(sum);
  }
  return { transfers: sum, logs, cumulative };
}
