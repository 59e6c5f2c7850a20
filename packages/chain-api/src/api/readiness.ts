import type { Queryable } from '@sluice/db';
import type { ChainStatus } from '../ingest/chain-indexer.js';
import type { SelectableChain } from './chain-selector.js';
import { chainNotReady } from './chain-selector.js';

export type { ChainStatus };

/** Where the API learns whether each chain's index is usable. */
export interface StatusSource {
  status(): ChainStatus[] | Promise<ChainStatus[]>;
}

interface CheckpointRow {
  chain_id: number;
  indexed_block: string;
  head_block: string | null;
  backfill_done: boolean;
  lag_seconds: number | null;
  age_seconds: number;
  halted: string | null;
  traces: string | null;
  deferred_indexes: number;
}

/**
 * Readiness for API-only replicas (no indexer in this process), read from `checkpoints`:
 * ready = backfill done, the indexer wrote within `staleAfterSeconds` and no secondary index a
 * cold backfill deferred is still to build. Cached for `cacheMs`
 * so requests don't each hit the table.
 */
export function checkpointStatusSource(
  db: Queryable,
  chains: readonly SelectableChain[],
  opts: { staleAfterSeconds?: number; cacheMs?: number } = {},
): StatusSource {
  const staleAfter = opts.staleAfterSeconds ?? 60;
  const cacheMs = opts.cacheMs ?? 1_000;
  let cached: { at: number; value: Promise<ChainStatus[]> } | undefined;

  const load = async (): Promise<ChainStatus[]> => {
    const { rows } = await db.query<CheckpointRow>(
      `select chain_id, indexed_block::text, head_block::text, backfill_done, halted,
              capabilities->>'traces' as traces,
              extract(epoch from now() - indexed_time)::float8 as lag_seconds,
              extract(epoch from now() - updated_at)::float8 as age_seconds,
              (select count(*) from deferred_indexes)::int as deferred_indexes
         from checkpoints where chain_id = any($1::int[])`,
      [chains.map((chain) => chain.chainId)],
    );
    const byId = new Map(rows.map((row) => [row.chain_id, row]));
    return chains.map((chain) => {
      const row = byId.get(chain.chainId);
      if (!row) {
        return {
          chain_id: chain.chainId,
          name: chain.name,
          head_block: null,
          indexed_block: null,
          lag_seconds: null,
          ready: false,
        };
      }
      return {
        chain_id: chain.chainId,
        name: chain.name,
        head_block: row.head_block === null ? null : Number(row.head_block),
        indexed_block: Number(row.indexed_block),
        lag_seconds: row.lag_seconds === null ? null : Math.max(0, Math.round(row.lag_seconds)),
        ready:
          row.backfill_done &&
          row.age_seconds <= staleAfter &&
          !row.halted &&
          row.deferred_indexes === 0,
        ...(row.traces === null
          ? {}
          : { traces: row.traces === 'true' ? 'supported' : 'unsupported' }),
        ...(row.halted ? { error: row.halted } : {}),
      };
    });
  };

  return {
    status() {
      const now = Date.now();
      if (!cached || now - cached.at > cacheMs) {
        const value = load();
        cached = { at: now, value };
        value.catch(() => {
          cached = undefined;
        });
      }
      return cached.value;
    },
  };
}

/** Throws the 503 when any of `chains` is not ready. */
export async function assertChainsReady(
  source: StatusSource,
  chains: readonly SelectableChain[],
): Promise<void> {
  const notReady = await chainsNotReady(source, chains);
  if (notReady.length > 0) throw chainNotReady(notReady.map((chain) => chain.name));
}

/** The subset of `chains` whose index is not ready. */
export async function chainsNotReady<C extends SelectableChain>(
  source: StatusSource,
  chains: readonly C[],
): Promise<C[]> {
  if (chains.length === 0) return [];
  const statuses = await source.status();
  const ready = new Set(statuses.filter((s) => s.ready).map((s) => s.chain_id));
  return chains.filter((chain) => !ready.has(chain.chainId));
}
