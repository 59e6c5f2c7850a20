import type { Queryable } from '@sluice/db';
import type { DerivedBatch } from '../derive/index.js';
import { bulkInsert } from './bulk-insert.js';
import { indexDefinition } from './index-definition.js';
import { iso, s } from './sql-values.js';

/** Transactions by hash (no query of the package reads it; kept for operators' look-ups). */
export const transactionsHashIndex = indexDefinition(
  'create index if not exists transactions_hash_idx on transactions (hash)',
);

/** Schema of `blocks`, `transactions` and `logs` (part of the core migration). */
export const chainDataSchema = /* sql */ `
-- Block headers of every indexed block. The rows above the chain's finalized height form the
-- unfinalized window that reorg detection compares parent hashes against.
create table blocks (
  chain_id      integer     not null,
  number        bigint      not null,
  hash          text        not null,
  parent_hash   text        not null,
  timestamp     timestamptz not null,
  tx_count      integer     not null default 0,
  primary key (chain_id, number)
);

-- Top-level transactions (from the block bodies + receipts). input is raw calldata.
create table transactions (
  chain_id         integer       not null,
  block_number     bigint        not null,
  tx_index         integer       not null,
  hash             text          not null,
  from_address     text          not null,
  to_address       text,                       -- null for contract creation
  contract_address text,                       -- created contract (receipt), if any
  value            numeric(78,0) not null,
  selector         text,                       -- first 4 bytes of input as 0x + 8 hex, null when input is empty
  input            bytea         not null,
  status           smallint      not null,     -- 1 success, 0 reverted
  gas_used         numeric(78,0) not null,
  effective_gas_price numeric(78,0),
  primary key (chain_id, block_number, tx_index)
);
${transactionsHashIndex.create};

-- Raw receipt logs. By default only those NOT decoded into typed rows (activity, pools, ...): e.g.
-- ERC-1155 URI events and every contract's own events; storeLogs 'all' keeps every log.
create table logs (
  chain_id      integer  not null,
  block_number  bigint   not null,
  tx_index      integer  not null,
  log_index     integer  not null,
  address       text     not null,
  topic0        text,
  topic1        text,
  topic2        text,
  topic3        text,
  data          bytea    not null,
  primary key (chain_id, block_number, log_index)
);
`;

/** Raw logs to keep: all, only those not decoded into typed rows, or none. */
export type StoreLogs = 'all' | 'undecoded' | 'none';

/** Inserts the batch's block headers; `append` is the conflict clause (empty: plain append). */
export async function writeBlocks(
  tx: Queryable,
  chain: number,
  batch: DerivedBatch,
  append: string,
): Promise<void> {
  await bulkInsert(
    tx,
    'blocks',
    [
      ['chain_id', 'int4'],
      ['number', 'int8'],
      ['hash', 'text'],
      ['parent_hash', 'text'],
      ['timestamp', 'timestamptz'],
      ['tx_count', 'int4'],
    ],
    batch.blocks.map((b) => [chain, s(b.number), b.hash, b.parentHash, iso(b.time), b.txCount]),
    append,
  );
}

/**
 * Stores the block a chain's checkpoint starts from (below its start block), so the first
 * batch's parent hash can be checked.
 */
export async function writeAnchorBlock(
  db: Queryable,
  chain: number,
  block: { number: bigint; hash: string; parentHash: string; time: Date | null },
): Promise<void> {
  await db.query(
    `insert into blocks (chain_id, number, hash, parent_hash, timestamp) values ($1, $2, $3, $4, $5)
     on conflict do nothing`,
    [chain, block.number.toString(), block.hash, block.parentHash, block.time?.toISOString()],
  );
}

/** Inserts the batch's transactions. */
export async function writeTransactions(
  tx: Queryable,
  chain: number,
  batch: DerivedBatch,
  append: string,
): Promise<void> {
  await bulkInsert(
    tx,
    'transactions',
    [
      ['chain_id', 'int4'],
      ['block_number', 'int8'],
      ['tx_index', 'int4'],
      ['hash', 'text'],
      ['from_address', 'text'],
      ['to_address', 'text'],
      ['contract_address', 'text'],
      ['value', 'numeric'],
      ['selector', 'text'],
      ['input', 'bytea'],
      ['status', 'int2'],
      ['gas_used', 'numeric'],
      ['effective_gas_price', 'numeric'],
    ],
    batch.txs.map((t) => [
      chain,
      s(t.blockNumber),
      t.txIndex,
      t.hash,
      t.from,
      t.to,
      t.contractAddress,
      s(t.value),
      t.selector,
      t.input,
      t.status,
      s(t.gasUsed),
      t.effectiveGasPrice === null ? null : s(t.effectiveGasPrice),
    ]),
    append,
  );
}

/** Inserts the batch's raw logs that `storeLogs` keeps. */
export async function writeLogs(
  tx: Queryable,
  chain: number,
  batch: DerivedBatch,
  storeLogs: StoreLogs,
  append: string,
): Promise<void> {
  if (storeLogs === 'none') return;
  const logs = storeLogs === 'all' ? batch.logs : batch.logs.filter((l) => !l.decoded);
  await bulkInsert(
    tx,
    'logs',
    [
      ['chain_id', 'int4'],
      ['block_number', 'int8'],
      ['tx_index', 'int4'],
      ['log_index', 'int4'],
      ['address', 'text'],
      ['topic0', 'text'],
      ['topic1', 'text'],
      ['topic2', 'text'],
      ['topic3', 'text'],
      ['data', 'bytea'],
    ],
    logs.map((l) => [
      chain,
      s(l.blockNumber),
      l.txIndex,
      l.logIndex,
      l.address,
      l.topics[0] ?? null,
      l.topics[1] ?? null,
      l.topics[2] ?? null,
      l.topics[3] ?? null,
      l.data,
    ]),
    append,
  );
}
