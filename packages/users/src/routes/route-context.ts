import type { UserStore } from '../store/user-store.js';

/** What every route module receives. */
export interface RouteContext {
  store: UserStore;
  /** Which database backs the store, reported by /health. */
  databaseKind: string;
  /** Longest `/health` waits for the database before answering 503, in ms. */
  healthTimeoutMs: number;
}
