/**
 * A standalone indexer process for the crash and takeover tests: indexes one chain described by
 * CHAIN_JSON into DATABASE_URL until killed. Prints "leader" once it holds the chain's lock.
 * STORE_MIGRATIONS=1 migrates the whole serve store (API indexes included);
 * DEFER_INDEXES_MIN_BLOCKS is passed as the indexer's `deferIndexesMinBlocks`.
 */
import { migrate, openDatabase } from '@sluice/db';
import pino from 'pino';
import type { ChainConfig } from '../../src/chains/index.js';
import { startIndexers } from '../../src/ingest/index.js';
import { chainMigrations, storeMigrations } from '../../src/store/index.js';

const raw = JSON.parse(process.env.CHAIN_JSON ?? '{}') as ChainConfig & { startBlock: string };
const chain: ChainConfig = { ...raw, startBlock: BigInt(raw.startBlock) };
const db = await openDatabase({ url: process.env.DATABASE_URL });
await migrate(db, process.env.STORE_MIGRATIONS === '1' ? storeMigrations : chainMigrations);
const indexers = await startIndexers({
  db,
  chains: [chain],
  log: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
  batchSize: Number(process.env.BATCH_SIZE ?? 5),
  maxBatchSize: Number(process.env.BATCH_SIZE ?? 5),
  pollIntervalMs: 50,
  standbyRetryMs: 200,
  deferIndexesMinBlocks: Number(process.env.DEFER_INDEXES_MIN_BLOCKS ?? 0),
});
let announced = false;
const timer = setInterval(() => {
  const s = indexers.status()[0];
  if (
    !announced &&
    s?.indexed_block !== null &&
    s?.indexed_block !== undefined &&
    s.head_block !== null
  ) {
    announced = true;
    process.stdout.write('leader\n');
  }
}, 20);
process.on('SIGTERM', () => {
  clearInterval(timer);
  void indexers
    .stop()
    .then(() => db.close())
    .then(() => process.exit(0));
});
