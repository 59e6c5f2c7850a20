/**
 * Query plans of the history endpoints on the API bench's seeded store:
 * `tsx bench/explain-history.ts` (TEST_DATABASE_URL). Prints EXPLAIN (ANALYZE, BUFFERS) of the
 * balances-at-a-block page query (first page and the full 1,000-token page), the `as_of` block
 * lookup and the portfolio's per-day movement aggregation for the heavy wallet.
 */
import type { Queryable, QueryResult } from '@sluice/db';
import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import { selectHistoricalCandidates } from '../src/api/queries/historical-balances-query.js';
import { storeMigrations } from '../src/store/migrations.js';
import { setCheckpoint } from '../test/support/seed-store.js';
import { seedSurfaceStore } from './api-bench-surface.js';
import { seedBenchStore } from './seed-bench-store.js';

/** A Queryable that prints the plan of each statement instead of its rows. */
function explaining(db: Queryable, label: string): Queryable {
  return {
    async query<Row>(sql: string, params?: unknown[]): Promise<QueryResult<Row>> {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers, costs off) ${sql}`,
        params,
      );
      process.stdout.write(`\n## ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
      return { rows: [], rowCount: 0 };
    },
  } as Queryable;
}

async function main() {
  const t = await createTestDatabase('postgres');
  try {
    await migrate(t.db, storeMigrations);
    const store = await seedBenchStore(t.db, Number(process.env.BENCH_LIGHT_WALLETS ?? 10_000));
    await setCheckpoint(t.db, 1, { indexedBlock: 3_000_000, backfillDone: true });
    const surface = await seedSurfaceStore(t.db, store);
    const { rows } = await t.db.query<{ timestamp: Date }>(
      'select timestamp from blocks where chain_id = 1 and number = $1',
      [surface.pastBlock],
    );
    const blockTime = rows[0]!.timestamp;
    const base = { wallet: store.heavy, chainId: 1, block: BigInt(surface.pastBlock), blockTime };
    await selectHistoricalCandidates(
      explaining(t.db, 'balances at a block, first page (11 rows)'),
      {
        ...base,
        limit: 11,
      },
    );
    await selectHistoricalCandidates(explaining(t.db, 'balances at a block, 1,001 rows'), {
      ...base,
      limit: 1001,
    });
    await explaining(t.db, 'as_of: last block at or before a time').query(
      `select number::text as block, timestamp from blocks
        where chain_id = $1 and timestamp <= $2 and number <= $3
        order by timestamp desc, number desc limit 1`,
      [1, new Date(Date.now() - 86_400_000).toISOString(), '3000000'],
    );
  } finally {
    await t.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
