export { reconcileMigrations } from '../store/reconcile-migrations.js';
export { type BalancePair, type ReadCost, readBalances } from './read-balances.js';
export type {
  BatchReads,
  ReconcileOptions,
  ReconcilePlan,
  ReconcileStatus,
} from './reconcile-types.js';
export { Reconciler } from './reconciler.js';
export { applyAbsolutes } from './settle-reads.js';
export { applyWrapperMoves } from './wrapper-moves.js';
