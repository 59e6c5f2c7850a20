import type { Queryable } from '@sluice/db';
import { announceStoreChange, publishStoreChange } from '../changes/publish-store-change.js';
import type { StoreChangeBuilder } from '../changes/store-change.js';
import type { DerivedBatch, PoolChanges, TokenMetadata } from '../derive/index.js';
import { BaseError, InternalError } from '../errors/index.js';
import { batchChange } from './batch-change.js';
import { type BulkColumn, bulkInsert } from './bulk-insert.js';
import { writeNewTokens, writePoolRows, writePoolStateRows } from './pool-and-token-rows.js';
import { snapshotForUndo } from './undo-log.js';

/** Another writer moved the checkpoint (or it isn't where this batch starts). */
/** Raw logs to keep: all, only those not decoded into typed rows, or none. */
export type StoreLogs = 'all' | 'undecoded' | 'none';

export class CheckpointConflictError extends BaseError<'CHECKPOINT_CONFLICT'> {
  override name = 'CheckpointConflictError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'CHECKPOINT_CONFLICT', cause: options.cause });
  }
}

export interface WriteBatchInput {
  chainId: number;
  batch: DerivedBatch;
  /** The checkpoint this batch continues from (compare-and-set). */
  expected: { block: bigint; hash: string };
  /** Native balances of `batch.nativeTouched` at `batch.toBlock`. */
  nativeBalances: ReadonlyMap<string, bigint>;
  /** Metadata of token contracts first seen in this batch. */
  newTokens: readonly TokenMetadata[];
  pools: PoolChanges;
  /** Record undo snapshots (the batch reaches into the unfinalized window). */
  undo: boolean;
  /** Drop undo entries of batches that started below this block (finalized). */
  pruneUndoBelow: bigint;
  headBlock: bigint;
  backfillDone: boolean;
  storeLogs: StoreLogs;
}

const s = (v: bigint | number) => v.toString();
const iso = (d: Date) => d.toISOString();
/** `iso` for many rows sharing few Date objects (a block's rows share its time). */
function isoMemo(): (d: Date) => string {
  let last: Date | undefined;
  let text = '';
  return (d) => {
    if (d !== last) {
      last = d;
      text = d.toISOString();
    }
    return text;
  };
}

/**
 * Writes one derived batch and moves the checkpoint, inside the caller's transaction. The
 * checkpoint update is a compare-and-set on the previous block and hash, so two writers can never
 * both apply a batch.
 *
 * @example
 * await db.transaction((tx) => writeBatch(tx, input));
 */
export async function writeBatch(tx: Queryable, input: WriteBatchInput): Promise<void> {
  const { chainId: chain, batch } = input;
  const last = batch.blocks[batch.blocks.length - 1];
  if (!last) throw new InternalError('empty batch');

  const cas = await tx.query(
    `update checkpoints set indexed_block = $2, indexed_hash = $3, indexed_time = $4, head_block = $5,
            backfill_done = $6, updated_at = now()
      where chain_id = $1 and indexed_block = $7 and indexed_hash = $8`,
    [
      chain,
      s(last.number),
      last.hash,
      iso(last.time),
      s(input.headBlock),
      input.backfillDone,
      s(input.expected.block),
      input.expected.hash,
    ],
  );
  if (cas.rowCount !== 1) {
    throw new CheckpointConflictError(
      `chain ${chain}: checkpoint is no longer at ${input.expected.block}`,
    );
  }
  // The batch names the wallets and tokens it touched (published last, delivered at commit), so
  // cached answers of everybody else stay valid.
  await announceStoreChange(tx);
  const change = batchChange(chain, batch, input);

  if (input.undo) await snapshotForUndo(tx, input);
  await writeBatchRows(tx, input, false, change);
  await publishStoreChange(tx, change);
}

/** What `writeBatchRows` writes: a batch's rows without the checkpoint move. */
export type BatchRowsInput = Pick<
  WriteBatchInput,
  'chainId' | 'batch' | 'nativeBalances' | 'newTokens' | 'pools' | 'pruneUndoBelow' | 'storeLogs'
>;

/**
 * Writes a derived batch's rows (no checkpoint move, no undo). `idempotent` (wallets-mode
 * backfills, src/wallets) skips rows already stored instead of appending: a transaction shared
 * with another tracked wallet is stored once.
 *
 * @example
 * await writeBatchRows(tx, { chainId, batch, nativeBalances, newTokens, pools, pruneUndoBelow: 0n, storeLogs }, true);
 */
export async function writeBatchRows(
  tx: Queryable,
  input: BatchRowsInput,
  idempotent = false,
  /** Gains the wallets only the writes can name (an ERC721's previous owner); the caller publishes. */
  change?: StoreChangeBuilder,
): Promise<void> {
  const { chainId: chain, batch } = input;
  const append = idempotent ? 'on conflict do nothing' : '';
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

  if (input.storeLogs !== 'none') {
    const logs = input.storeLogs === 'all' ? batch.logs : batch.logs.filter((l) => !l.decoded);
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

  const activityTime = isoMemo();
  await bulkInsert(
    tx,
    'activity',
    [
      ['chain_id', 'int4'],
      ['wallet', 'text'],
      ['block_time', 'timestamptz'],
      ['block_number', 'int8'],
      ['tx_index', 'int4'],
      ['log_index', 'int4'],
      ['sub_index', 'int4'],
      ['tx_hash', 'text'],
      ['type', 'text'],
      ['asset_type', 'text'],
      ['token_address', 'text'],
      ['from_address', 'text'],
      ['to_address', 'text'],
      ['value', 'numeric'],
      ['token_id', 'numeric'],
      ['extra', 'jsonb'],
    ],
    batch.activity.map((a) => [
      chain,
      a.wallet,
      activityTime(a.blockTime),
      s(a.blockNumber),
      a.txIndex,
      a.logIndex,
      a.subIndex,
      a.txHash,
      a.type,
      a.assetType,
      a.tokenAddress,
      a.from,
      a.to,
      a.value === null ? null : s(a.value),
      a.tokenId === null ? null : s(a.tokenId),
      a.extra === null ? null : JSON.stringify(a.extra),
    ]),
    append,
  );

  const to = s(batch.toBlock);
  const erc20Cols: BulkColumn[] = [
    ['wallet', 'text'],
    ['chain_id', 'int4'],
    ['token', 'text'],
    ['amount', 'numeric'],
    ['updated_block', 'int8'],
    ['first_acquired', 'timestamptz'],
    ['has_sent', 'bool'],
  ];
  const erc20 = [...batch.erc20Deltas.values()];
  const facts = (d: (typeof erc20)[number]) => [
    d.acquired ? iso(d.acquired) : null,
    d.sent === true,
  ];
  // Batches are written in block order: a stored first receipt is earlier than this batch's.
  const keepFacts = `first_acquired = coalesce(erc20_balances.first_acquired, excluded.first_acquired),
       has_sent = erc20_balances.has_sent or excluded.has_sent`;
  // Amounts are CHECKed non-negative and an insert checks its row before ON CONFLICT: negative
  // deltas go through UPDATE (the reconciler made sure they leave the balance >= 0).
  await bulkInsert(
    tx,
    'erc20_balances',
    erc20Cols,
    erc20
      .filter((d) => d.absolute === undefined && d.delta >= 0n)
      .map((d) => [d.wallet, chain, d.token, s(d.delta), s(d.block), ...facts(d)]),
    `on conflict (wallet, chain_id, token) do update
       set amount = erc20_balances.amount + excluded.amount, updated_block = excluded.updated_block,
       ${keepFacts}`,
  );
  const minus = erc20.filter((d) => d.absolute === undefined && d.delta < 0n);
  if (minus.length > 0) {
    await tx.query(
      `update erc20_balances b set amount = b.amount + u.d, updated_block = u.b,
              first_acquired = coalesce(b.first_acquired, u.fa), has_sent = b.has_sent or u.hs
         from unnest($2::text[], $3::text[], $4::numeric[], $5::int8[], $6::timestamptz[], $7::bool[])
           as u(w, t, d, b, fa, hs)
        where b.chain_id = $1 and b.wallet = u.w and b.token = u.t`,
      [
        chain,
        minus.map((d) => d.wallet),
        minus.map((d) => d.token),
        minus.map((d) => s(d.delta)),
        minus.map((d) => s(d.block)),
        minus.map((d) => (d.acquired ? iso(d.acquired) : null)),
        minus.map((d) => d.sent === true),
      ],
    );
  }
  // Pairs read from the chain (reconciliation, src/reconcile): the balance at the batch's last
  // block is the truth.
  await bulkInsert(
    tx,
    'erc20_balances',
    erc20Cols,
    erc20
      .filter((d) => d.absolute !== undefined)
      .map((d) => [d.wallet, chain, d.token, s(d.absolute as bigint), s(d.block), ...facts(d)]),
    `on conflict (wallet, chain_id, token) do update
       set amount = excluded.amount, updated_block = excluded.updated_block, ${keepFacts}`,
  );

  await bulkInsert(
    tx,
    'native_balances',
    [
      ['wallet', 'text'],
      ['chain_id', 'int4'],
      ['amount', 'numeric'],
      ['updated_block', 'int8'],
    ],
    [...input.nativeBalances].map(([wallet, amount]) => [wallet, chain, s(amount), to]),
    `on conflict (wallet, chain_id) do update
       set amount = excluded.amount, updated_block = excluded.updated_block`,
  );

  for (const previousOwner of await writeNftHoldings(tx, chain, batch)) {
    change?.wallet(chain, previousOwner);
  }

  await writeNewTokens(
    tx,
    chain,
    input.newTokens,
    (t) => batch.tokens.get(t.address)?.firstBlock ?? batch.fromBlock,
  );

  await writePools(tx, chain, input.pools);

  await bulkInsert(
    tx,
    'nft_metadata',
    [
      ['chain_id', 'int4'],
      ['contract', 'text'],
      ['token_id', 'numeric'],
      ['standard', 'text'],
    ],
    [...batch.nfts.values()].map((n) => [chain, n.contract, s(n.tokenId), n.standard]),
    'on conflict (chain_id, contract, token_id) do nothing',
  );
  for (const r of batch.metadataRefresh) {
    await tx.query(
      `update nft_metadata set status = 'pending', next_attempt = now(), attempts = 0,
              refresh_block = $5
        where chain_id = $1 and contract = $2 and token_id between $3 and $4`,
      [chain, r.contract, s(r.fromTokenId), s(r.toTokenId), s(r.block)],
    );
  }

  await bulkInsert(
    tx,
    'nft_sales',
    [
      ['chain_id', 'int4'],
      ['contract', 'text'],
      ['token_id', 'numeric'],
      ['block_number', 'int8'],
      ['block_time', 'timestamptz'],
      ['tx_hash', 'text'],
      ['log_index', 'int4'],
      ['seller', 'text'],
      ['buyer', 'text'],
      ['quantity', 'numeric'],
      ['payment_token', 'text'],
      ['price', 'numeric'],
    ],
    batch.sales.map((x) => [
      chain,
      x.contract,
      s(x.tokenId),
      s(x.blockNumber),
      iso(x.blockTime),
      x.txHash,
      x.logIndex,
      x.seller,
      x.buyer,
      s(x.quantity),
      x.paymentToken,
      s(x.price),
    ]),
    'on conflict do nothing',
  );

  await tx.query('delete from reorg_undo where chain_id = $1 and batch_from < $2', [
    chain,
    s(input.pruneUndoBelow),
  ]);
}

const HOLDING_COLUMNS: readonly BulkColumn[] = [
  ['wallet', 'text'],
  ['chain_id', 'int4'],
  ['contract', 'text'],
  ['token_id', 'numeric'],
  ['standard', 'text'],
  ['balance', 'numeric'],
  ['last_acquired', 'timestamptz'],
  ['last_acquired_block', 'int8'],
  ['updated_block', 'int8'],
];

/** Writes NFT holdings; returns the wallets that lost an ERC721 to this batch's final owner. */
async function writeNftHoldings(
  tx: Queryable,
  chain: number,
  batch: DerivedBatch,
): Promise<string[]> {
  const moves = [...batch.nft721.values()];
  let previousOwners: string[] = [];
  if (moves.length > 0) {
    // ERC721 ownership is absolute: whoever held the id before, the final owner holds it now.
    const { rows } = await tx.query<{ wallet: string }>(
      `delete from nft_holdings h
        using unnest($2::text[], $3::numeric[], $4::text[]) as m(contract, token_id, owner)
        where h.chain_id = $1 and h.contract = m.contract and h.token_id = m.token_id
          and (m.owner is null or h.wallet <> m.owner)
        returning h.wallet`,
      [
        chain,
        moves.map((m) => m.contract),
        moves.map((m) => s(m.tokenId)),
        moves.map((m) => m.owner),
      ],
    );
    previousOwners = rows.map((r) => r.wallet);
    const owned = moves.filter((m) => m.owner !== null);
    await bulkInsert(
      tx,
      'nft_holdings',
      HOLDING_COLUMNS,
      owned.map((m) => [
        m.owner,
        chain,
        m.contract,
        s(m.tokenId),
        'erc721',
        '1',
        iso(m.time),
        s(m.block),
        s(m.block),
      ]),
      `on conflict (wallet, chain_id, contract, token_id) do update
         set balance = 1, last_acquired = excluded.last_acquired,
             last_acquired_block = excluded.last_acquired_block, updated_block = excluded.updated_block`,
    );
  }
  const deltas = [...batch.nft1155.values()];
  if (deltas.length > 0) {
    // Deltas add up; a balance read from the chain (reconciliation) replaces the stored one.
    // Negative deltas go through UPDATE (an insert checks balance >= 0 before ON CONFLICT).
    const minus = deltas.filter((d) => d.absolute === undefined && d.delta < 0n);
    if (minus.length > 0) {
      await tx.query(
        `update nft_holdings h set balance = h.balance + u.d, updated_block = u.b
           from unnest($2::text[], $3::text[], $4::numeric[], $5::numeric[], $6::int8[]) as u(w, c, id, d, b)
          where h.chain_id = $1 and h.wallet = u.w and h.contract = u.c and h.token_id = u.id`,
        [
          chain,
          minus.map((d) => d.wallet),
          minus.map((d) => d.contract),
          minus.map((d) => s(d.tokenId)),
          minus.map((d) => s(d.delta)),
          minus.map((d) => s(d.block)),
        ],
      );
    }
    for (const absolute of [false, true]) {
      const rows = deltas.filter(
        (d) => (d.absolute !== undefined) === absolute && (absolute || d.delta >= 0n),
      );
      await bulkInsert(
        tx,
        'nft_holdings',
        HOLDING_COLUMNS,
        rows.map((d) => [
          d.wallet,
          chain,
          d.contract,
          s(d.tokenId),
          'erc1155',
          s(d.absolute ?? d.delta),
          iso(d.acquired?.time ?? new Date(0)),
          s(d.acquired?.block ?? -1n),
          s(d.block),
        ]),
        `on conflict (wallet, chain_id, contract, token_id) do update
           set balance = ${absolute ? 'excluded.balance' : 'nft_holdings.balance + excluded.balance'},
               last_acquired = case when excluded.last_acquired_block >= 0
                                    then excluded.last_acquired else nft_holdings.last_acquired end,
               last_acquired_block = greatest(nft_holdings.last_acquired_block, excluded.last_acquired_block),
               updated_block = excluded.updated_block`,
      );
    }
    await tx.query(
      `delete from nft_holdings h
        using unnest($2::text[], $3::text[], $4::numeric[]) as d(wallet, contract, token_id)
        where h.wallet = d.wallet and h.chain_id = $1 and h.contract = d.contract
          and h.token_id = d.token_id and h.balance <= 0`,
      [
        chain,
        deltas.map((d) => d.wallet),
        deltas.map((d) => d.contract),
        deltas.map((d) => s(d.tokenId)),
      ],
    );
  }
  return previousOwners;
}

async function writePools(tx: Queryable, chain: number, pools: PoolChanges): Promise<void> {
  await writePoolRows(tx, chain, pools.changed, 'update');
  await writePoolStateRows(tx, chain, pools.states);
}
