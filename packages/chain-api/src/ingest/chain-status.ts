import type { ChainConfig } from '../chains/index.js';
import type { ChainCapabilities } from '../rpc/index.js';
import type { StandbyStatus } from './checkpoint-store.js';
import type { ModeStatus } from './indexer-mode.js';
import type { ChainStatus, Checkpoint } from './indexer-types.js';

/** What a chain's indexer knows at a moment, as `chainStatus` reads it. */
export interface IndexerState<S extends ModeStatus = ModeStatus> {
  chain: Pick<ChainConfig, 'chainId' | 'name'>;
  caps: ChainCapabilities | undefined;
  /** Why indexing stopped (this process), if it did. */
  halted: string | undefined;
  leader: boolean;
  /** The leader's progress as a standby reads it from the store. */
  standby: StandbyStatus | null;
  checkpoint: Checkpoint | undefined;
  head: bigint | null;
  caughtUp: boolean;
  rpcOk: boolean;
  readyLagBlocks: number;
  /** Secondary indexes deferred by a cold backfill and not built yet (the chain is not ready). */
  deferredIndexes?: number;
  /** Leader-only sections (reconciliation, wallets mode, reorgs repaired). */
  extra: Pick<ChainStatus<S>, 'reconcile' | 'wallets' | 'reorgs'>;
  now: number;
}

const num = (v: bigint | null | undefined) => (v === null || v === undefined ? null : Number(v));

/**
 * A chain's /health entry: stopped (with why), a standby's view of the leader, or the leader's
 * own progress. Ready means caught up, the RPC answering, and at most `readyLagBlocks` behind;
 * `lag_seconds` is the age of the indexed block while behind, 0 at the head.
 *
 * @example
 * const status = chainStatus({ ...state, now: Date.now() });
 */
export function chainStatus<S extends ModeStatus>(s: IndexerState<S>): ChainStatus<S> {
  const base = {
    chain_id: s.chain.chainId,
    name: s.chain.name,
    traces: s.caps ? (s.caps.traces ? 'supported' : 'unsupported') : 'unknown',
  } as const;
  const halted = s.halted ?? s.standby?.error;
  if (halted) {
    return {
      ...base,
      head_block: null,
      indexed_block: null,
      lag_seconds: null,
      ready: false,
      error: halted,
    };
  }
  if (!s.leader) {
    return {
      ...base,
      head_block: num(s.standby?.head),
      indexed_block: num(s.standby?.indexed),
      lag_seconds: null,
      ready: Boolean(s.standby?.fresh),
    };
  }
  const indexed = s.checkpoint?.block ?? null;
  const behind = s.head !== null && indexed !== null ? s.head - indexed : null;
  let lag: number | null = null;
  if (behind !== null) {
    lag =
      behind <= 0n || !s.checkpoint?.time
        ? 0
        : Math.max(0, Math.round((s.now - s.checkpoint.time.getTime()) / 1000));
  }
  return {
    ...base,
    head_block: num(s.head),
    indexed_block: num(indexed),
    lag_seconds: lag,
    ready:
      s.caughtUp &&
      s.rpcOk &&
      behind !== null &&
      behind <= BigInt(s.readyLagBlocks) &&
      !s.deferredIndexes,
    ...(s.deferredIndexes ? { deferred_indexes: s.deferredIndexes } : {}),
    ...s.extra,
  };
}
