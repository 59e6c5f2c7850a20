// The writer of the API benchmark's live case, in its own process like the indexer:
// every LIVE_BLOCK_MS it commits one block through the indexer's write path (writeBatch: rows,
// checkpoint compare-and-set, change notification) in which LIVE_TOUCH random wallets of
// LIVE_UNIVERSE receive an ERC20 transfer, and re-prices LIVE_PRICE_TICKS tokens through the
// pricing worker's writer. Wallets 0..LIVE_READ_WALLETS-1 of the universe are the bench's light
// wallets (the ones read). Prints "ready" once set up; on SIGTERM prints its stats as JSON.
// Usage: DATABASE_URL=... tsx bench/live-writer.ts
import { openDatabase } from '@sluice/db';
import { prng } from '../src/devnet/prng.js';
import { CheckpointConflictError } from '../src/store/index.js';
import { addr } from '../test/support/seed-store.js';
import {
  commitPrices,
  type SyntheticTip,
  syntheticBatch,
  syntheticPricePoint,
  writeSyntheticBatch,
} from '../test/support/synthetic-batch.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const universe = env('LIVE_UNIVERSE', 100_000);
const readWallets = env('LIVE_READ_WALLETS', 10_000);
const touch = env('LIVE_TOUCH', 1_000);
const blockMs = env('LIVE_BLOCK_MS', 250);
const priceTicks = env('LIVE_PRICE_TICKS', 5);
const chainId = 1;
/** The tokens the light wallets hold (seed-bench-store.ts). */
const tokens = Array.from({ length: 200 }, (_, i) => addr('bench-token', i));
const funder = addr('live-funder');
const wallet = (i: number) => (i < readWallets ? addr('light', i) : addr('live-extra', i));

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  const db = await openDatabase({ url, statementTimeoutMs: 0, applicationName: 'live-writer' });
  // The payer of every transfer (set up once per store; each mode's writer finds it there).
  await db.query(
    `insert into erc20_balances (wallet, chain_id, token, amount, updated_block)
     select $1, $2, t, 1e40, 0 from unnest($3::text[]) as t on conflict do nothing`,
    [funder, chainId, tokens],
  );
  const random = prng(17);
  const commitMs: number[] = [];
  let late = 0;
  // Late blocks while the readers' measured window runs (SIGUSR2 at its start and at its end).
  let window = 'before' as 'before' | 'in' | 'after';
  let lateInWindow = 0;
  process.on('SIGUSR2', () => {
    window = window === 'before' ? 'in' : 'after';
  });
  let stopping = false;
  // Own block numbers, above any block stored (the bench's checkpoint refresher rewinds
  // indexed_block, and a second run of the writer continues after the first).
  const { rows: top } = await db.query<{ n: string }>(
    'select greatest(coalesce(max(number), 0), 5000000)::text as n from blocks where chain_id = $1',
    [chainId],
  );
  let block = BigInt(top[0]!.n);

  const tip = async (): Promise<SyntheticTip> => {
    const { rows } = await db.query<{ indexed_block: string; indexed_hash: string }>(
      'select indexed_block::text, indexed_hash from checkpoints where chain_id = $1',
      [chainId],
    );
    return { block: BigInt(rows[0]!.indexed_block), hash: rows[0]!.indexed_hash };
  };

  const pickTransfers = () => {
    const picked = new Set<number>();
    while (picked.size < Math.min(touch, universe)) picked.add(Math.floor(random() * universe));
    return [...picked].map((i) => ({
      from: funder,
      to: wallet(i),
      token: tokens[Math.floor(random() * tokens.length)]!,
      value: BigInt(1 + Math.floor(random() * 1000)),
    }));
  };
  // The next block, built while the writer waits for its slot (the indexer derives the next
  // batch while the last one is written): its parent is the block just committed.
  type Built = { parent: SyntheticTip; built: ReturnType<typeof syntheticBatch> };
  let ahead: Built | undefined;
  const build = (parent: SyntheticTip, time: Date): Built => ({
    parent,
    built: syntheticBatch({
      chainId,
      tip: parent,
      time,
      transfers: pickTransfers(),
      salt: `live${parent.block + 1n}`,
    }),
  });

  const writeBlock = async (time: Date): Promise<SyntheticTip> => {
    let written: SyntheticTip | undefined;
    // The bench's own checkpoint refresher may move the row: take it as it is, retry once.
    for (let attempt = 0; !written; attempt++) {
      try {
        const current = await tip();
        // Own block numbers (the refresher rewinds indexed_block): blocks stay unique.
        block += 1n;
        const parent = { ...current, block: block - 1n };
        const next =
          ahead && ahead.parent.block === parent.block && ahead.parent.hash === parent.hash
            ? ahead
            : build(parent, time);
        ahead = undefined;
        written = await writeSyntheticBatch(db, chainId, next.built, current, false);
      } catch (error) {
        if (!(error instanceof CheckpointConflictError) || attempt > 0) throw error;
      }
    }
    if (priceTicks > 0) {
      const points = Array.from({ length: priceTicks }, () =>
        syntheticPricePoint(
          tokens[Math.floor(random() * tokens.length)]!,
          block,
          time,
          0.5 + random() * 2,
          50_000 + random() * 1e6,
        ),
      );
      await commitPrices(db, chainId, [...new Map(points.map((p) => [p.token, p])).values()]);
    }
    return written;
  };

  process.once('SIGTERM', () => {
    stopping = true;
  });
  process.stdout.write('ready\n');
  let next = performance.now();
  const began = next;
  const slotTime = (at: number) => new Date(performance.timeOrigin + at);
  while (!stopping) {
    const started = performance.now();
    const written = await writeBlock(slotTime(next));
    commitMs.push(performance.now() - started);
    next += blockMs;
    // Built now, written at its slot (block times are the slots', 250 ms apart like a chain's).
    ahead = build(written, slotTime(next));
    const wait = next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    else {
      late++;
      if (window === 'in') lateInWindow++;
      next = performance.now();
    }
  }
  commitMs.sort((x, y) => x - y);
  const pct = (p: number) =>
    Math.round(commitMs[Math.min(commitMs.length - 1, Math.floor(commitMs.length * p))] ?? 0);
  process.stdout.write(
    `${JSON.stringify({
      blocks: commitMs.length,
      // The target is 1000 / LIVE_BLOCK_MS; below it, the readers saw fewer changes than asked.
      blocksPerSecond: Number((commitMs.length / ((performance.now() - began) / 1000)).toFixed(2)),
      late,
      lateInWindow,
      commitP50Ms: pct(0.5),
      commitP99Ms: pct(0.99),
    })}\n`,
  );
  await db.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
