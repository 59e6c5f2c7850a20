import type { Reconciler } from '../reconcile/index.js';
import { chainStatus, type IndexerState } from './chain-status.js';
import type { IndexerMode, ModeStatus } from './indexer-mode.js';
import type { ChainStatus } from './indexer-types.js';

/** The leader-only parts of a chain's status. */
export interface LeaderSections<S extends ModeStatus> {
  reconciler: Pick<Reconciler, 'status'>;
  reorgs: { count: number; deepest: number };
  mode: Pick<IndexerMode<S>, 'status'> | undefined;
}

/**
 * A chain indexer's /health entry: the leader (still indexing) adds reconciliation, reorgs and
 * its mode's section; a standby or a stopped chain reports without them.
 *
 * @example
 * const status = indexerStatus(state, { reconciler, reorgs, mode });
 */
export function indexerStatus<S extends ModeStatus>(
  state: Omit<IndexerState<S>, 'extra' | 'now'>,
  leader: LeaderSections<S>,
): ChainStatus<S> {
  return chainStatus({
    ...state,
    extra:
      state.leader && !state.halted
        ? {
            reconcile: leader.reconciler.status(),
            reorgs: { ...leader.reorgs },
            ...(leader.mode ? { wallets: leader.mode.status() } : {}),
          }
        : {},
    now: Date.now(),
  });
}
