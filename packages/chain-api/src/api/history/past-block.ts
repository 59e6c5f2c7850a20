import type { ChainConfig } from '../../chains/chain-config.js';
import { ApiError, invalidParameter } from '../errors.js';
import type { ParamSpec } from '../params/param-spec.js';
import { quote } from '../params/param-spec.js';
import type { ReadDb } from '../queries/prepared-query.js';

/** A past block of one chain that a historical answer is computed at. */
export interface PastBlock {
  chainId: number;
  number: bigint;
  time: Date;
}

/** What the caller asked for: a block number or a point in time (never both). */
export type PastBlockRequest = { blockNumber: bigint } | { asOf: Date };

const digits = /^\d+$/;

/** `block_number`: a non-negative integer (a block of the one chain named by `chain_ids`). */
export const blockNumberParam: ParamSpec<bigint | undefined> = {
  schema: { type: 'string', pattern: '^\\d+$' },
  description:
    "Answer as of the end of this block of the chain named by `chain_ids` (exactly one chain), from stored history. Must be between the chain's first indexed block and the last indexed block. Not together with `as_of`.",
  parse(raw, name) {
    if (raw === undefined || raw === '') return undefined;
    if (!digits.test(raw) || raw.length > 20) {
      throw invalidParameter(name, `${quote(raw)} is not a block number (a non-negative integer)`);
    }
    return BigInt(raw);
  },
};

/** `as_of`: ISO 8601 date-time (with or without zone; none means UTC) or unix seconds. */
export const asOfParam: ParamSpec<Date | undefined> = {
  schema: { type: 'string' },
  description:
    'Answer as of the last indexed block whose timestamp is at or before this time: ISO 8601 (`2026-11-20T12:00:00Z`; no zone means UTC) or unix seconds. Needs `chain_ids` naming exactly one chain. Not together with `block_number`.',
  parse(raw, name) {
    if (raw === undefined || raw === '') return undefined;
    return parseTime(raw, name);
  },
};

/**
 * A time from unix seconds or an ISO 8601 string; a 400 naming `name` otherwise.
 *
 * @example
 * parseTime('1700000000', 'as_of') // 2023-11-14T22:13:20.000Z
 */
export function parseTime(raw: string, name: string): Date {
  let ms: number;
  if (digits.test(raw)) {
    ms = raw.length > 12 ? Number.NaN : Number(raw) * 1000;
  } else if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+)?(Z|[+-]\d{2}:?\d{2})?$/i.test(raw)) {
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(raw) || !/[T ]/.test(raw);
    ms = Date.parse(zoned ? raw : `${raw}Z`);
  } else {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms)) {
    throw invalidParameter(
      name,
      `${quote(raw)} is not a time (ISO 8601 such as 2026-11-20T12:00:00Z, or unix seconds)`,
    );
  }
  return new Date(ms);
}

/** The one request among `block_number`/`as_of`, or undefined for a current answer. */
export function pastBlockRequest(
  blockNumber: bigint | undefined,
  asOf: Date | undefined,
): PastBlockRequest | undefined {
  if (blockNumber !== undefined && asOf !== undefined) {
    throw invalidParameter('as_of', 'give either block_number or as_of, not both');
  }
  if (blockNumber !== undefined) return { blockNumber };
  if (asOf !== undefined) return { asOf };
  return undefined;
}

interface IndexedRange {
  indexed_block: string | null;
  first_block: string | null;
}

/**
 * Resolves a block number or a time to an indexed block of `chain` with its timestamp, or a 400
 * that names the parameter and the indexed range: above the last indexed block, below the first,
 * a time before the first indexed block or after the last one.
 *
 * @example
 * const at = await resolvePastBlock(ctx.db, chain, { blockNumber: 120n }); // {number: 120n, time}
 */
export async function resolvePastBlock(
  db: ReadDb,
  chain: ChainConfig,
  req: PastBlockRequest,
): Promise<PastBlock> {
  const { first, last } = await indexedRange(db, chain);
  const where = `${chain.name} (${chain.chainId})`;
  if ('blockNumber' in req) {
    const n = req.blockNumber;
    if (n > last) {
      throw invalidParameter(
        'block_number',
        `block ${n} is above the last indexed block ${last} of chain ${where}`,
      );
    }
    if (n < first) {
      throw invalidParameter(
        'block_number',
        `block ${n} is below the first indexed block ${first} of chain ${where}; history starts there`,
      );
    }
    const time = await blockTime(db, chain.chainId, n);
    if (!time) throw invalidParameter('block_number', `block ${n} of chain ${where} is not stored`);
    return { chainId: chain.chainId, number: n, time };
  }
  // Aliased: ORDER BY must sort by the bigint column, not its text.
  const { rows } = await db.query<{ block: string; timestamp: Date }>(
    `select number::text as block, timestamp from blocks
      where chain_id = $1 and timestamp <= $2 and number <= $3
      order by timestamp desc, number desc limit 1`,
    [chain.chainId, req.asOf.toISOString(), last.toString()],
  );
  const found = rows[0];
  if (!found || BigInt(found.block) < first) {
    throw invalidParameter(
      'as_of',
      `${req.asOf.toISOString()} is before the first indexed block ${first} of chain ${where}`,
    );
  }
  const headTime = await blockTime(db, chain.chainId, last);
  if (headTime && req.asOf.getTime() > headTime.getTime() + 999) {
    // A later block may exist on the chain that the index has not reached: not knowable yet.
    throw invalidParameter(
      'as_of',
      `${req.asOf.toISOString()} is after the last indexed block ${last} of chain ${where} (${headTime.toISOString()}); use block_number ${last} or omit as_of for current balances`,
    );
  }
  return { chainId: chain.chainId, number: BigInt(found.block), time: found.timestamp };
}

/**
 * The blocks of `chain` whose end state the store can answer for: from the configured start block
 * (or the first stored header, if later) to the last indexed block; 503 before the first batch.
 *
 * @example
 * const { first, last } = await indexedRange(db, chain); // { first: 0n, last: 1234n }
 */
export async function indexedRange(
  db: ReadDb,
  chain: ChainConfig,
): Promise<{ first: bigint; last: bigint }> {
  const range = await db.query<IndexedRange>(
    `select c.indexed_block::text,
            (select min(b.number) from blocks b where b.chain_id = $1)::text as first_block
       from (select 1) one left join checkpoints c on c.chain_id = $1`,
    [chain.chainId],
  );
  const head = range.rows[0]?.indexed_block;
  if (head === null || head === undefined) {
    throw new ApiError(
      'NOT_READY',
      `Try again later: chain ${chain.name} (${chain.chainId}) has no indexed block yet.`,
    );
  }
  const stored = range.rows[0]?.first_block;
  const first = stored ? bigMax(BigInt(stored), chain.startBlock) : chain.startBlock;
  return { first, last: BigInt(head) };
}

/** Timestamp of an indexed block, or null when it is not stored. */
export async function blockTime(db: ReadDb, chainId: number, n: bigint): Promise<Date | null> {
  const { rows } = await db.query<{ timestamp: Date }>(
    'select timestamp from blocks where chain_id = $1 and number = $2',
    [chainId, n.toString()],
  );
  return rows[0]?.timestamp ?? null;
}

const bigMax = (a: bigint, b: bigint) => (a > b ? a : b);
