/**
 * Wallets-mode benchmark (issue 16): on one anvil history (`--empty-blocks` empty blocks, then
 * the random workload of `--cold` active wallets and a hot wallet with N ERC20 transfers),
 * measures
 *   1. full indexing of the whole history (indexOnce, every migration applied),
 *   2. wallets mode: time from the first request for the cold hot wallet to its complete answer
 *      (no WALLET_BACKFILL_IN_PROGRESS warning),
 *   3. wallets mode: `--cold` wallets requested at once, until every answer is complete.
 *
 *   npm run bench:wallets -w @sluice/chain-api -- [--transfers 10000] [--cold 100]
 *     [--empty-blocks 200000] [--wait-ms 10000]
 *
 * The `--empty-blocks` empty blocks come first, built in seconds by
 * `startAnvilWithEmptyHistory` (test/support/long-history.ts: mined on a pruned Cancun anvil,
 * dumped and loaded; ~10 s for 200,000 blocks, where a plain anvil's `anvil_mine` slows to tens
 * of blocks/s as the chain grows); the activity follows them, with 1,000 empty blocks between
 * its parts, all within the ~4,000 newest blocks anvil can still trace.
 */
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { ChainConfig } from '../src/chains/index.js';
import { indexOnce, startIndexers } from '../src/ingest/index.js';
import { deployWorkload, playRandomOps, rpcCall, send } from '../test/indexer/random-workload.js';
import { workloadChain } from '../test/indexer/workload-chain.js';
import { startAnvilWithEmptyHistory } from '../test/support/long-history.js';
import { alwaysReady, get, log, serveStore, waitFor } from '../test/wallets/wallets-harness.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}
const transfers = arg('transfers', 10_000);
const cold = arg('cold', 100);
const emptyBlocks = arg('empty-blocks', 200_000);
const waitMs = arg('wait-ms', 10_000);
const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

const seconds = (t0: number) => Math.round((performance.now() - t0) / 10) / 100;
const t0 = performance.now();
const anvil = await startAnvilWithEmptyHistory(emptyBlocks);
try {
  const w = await deployWorkload(anvil.rpcUrl, cold + 1, 21);
  const hot = w.wallets[0] as Hex;
  const token = w.erc20[0] as Hex;
  const mine = async (n: number) => {
    for (let left = n; left > 0; left -= 1_000) {
      await rpcCall(anvil.rpcUrl, 'anvil_mine', [`0x${Math.min(1_000, left).toString(16)}`]);
    }
  };
  await playRandomOps(anvil.rpcUrl, w, { seed: 22, ops: cold * 5, perBlock: 20 });
  await mine(1_000);
  // The hot wallet: `transfers` ERC20 transfers, half sent, half received, 200 per block.
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
  for (let i = 0; i < transfers; i++) {
    const peer = w.wallets[1 + (i % cold)] as Hex;
    const [from, to] = i % 2 === 0 ? [hot, peer] : [peer, hot];
    await send(
      anvil.rpcUrl,
      from,
      token,
      encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, 1_000n + BigInt(i)] }),
      0n,
      100_000n,
    );
    if (i % 200 === 199) await rpcCall(anvil.rpcUrl, 'evm_mine');
  }
  await rpcCall(anvil.rpcUrl, 'evm_mine');
  await mine(1_000);
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
  const head = Number(BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber')));
  console.log(
    `history: ${head} blocks, hot wallet ${transfers} transfers, built in ${seconds(t0)} s`,
  );

  // 1. Full indexing.
  const fullChain = workloadChain(anvil.rpcUrl, w);
  const full = await serveStore(fullChain, alwaysReady(31337));
  const t1 = performance.now();
  await indexOnce({ db: full.db, chains: [fullChain], log, maxBatchSize: 2_000 });
  const fullSeconds = seconds(t1);
  await full.app.close();
  await full.t.drop();

  // 2-3. Wallets mode.
  const chain: ChainConfig = { ...fullChain, mode: 'wallets' };
  let status = () => [] as ReturnType<Awaited<ReturnType<typeof startIndexers>>['status']>;
  const s = await serveStore(chain, { status: () => status() }, waitMs);
  const indexers = await startIndexers({
    db: s.db,
    chains: [chain],
    log,
    pollIntervalMs: 100,
    wallets: { concurrency: 8, rpcPerSecond: 100_000 },
  });
  status = () => indexers.status();
  await waitFor(() => indexers.status()[0]?.ready === true, 120_000);
  const complete = async (wallet: string) => {
    for (;;) {
      const page = await get(s, `/v1/evm/activity/${wallet}?chain_ids=31337&limit=100`);
      const warnings = (page.body.warnings ?? []) as { code: string }[];
      if (page.status === 200 && !warnings.some((x) => x.code === 'WALLET_BACKFILL_IN_PROGRESS'))
        return;
      await new Promise((r) => setTimeout(r, Number(page.retryAfter ?? 1) * 100));
    }
  };
  const t2 = performance.now();
  await complete(hot);
  const hotSeconds = seconds(t2);
  const t3 = performance.now();
  await Promise.all(w.wallets.slice(1, 1 + cold).map(complete));
  const coldSeconds = seconds(t3);
  await indexers.stop();
  await s.app.close();
  await s.t.drop();

  console.log('\n| run | seconds |\n|---|---:|');
  console.log(`| full indexing of ${head} blocks | ${fullSeconds} |`);
  console.log(
    `| wallets mode: cold wallet with ${transfers} transfers, first request to complete answer | ${hotSeconds} |`,
  );
  console.log(
    `| wallets mode: ${cold} cold wallets requested at once, all complete | ${coldSeconds} |`,
  );
} finally {
  await anvil.stop();
}
