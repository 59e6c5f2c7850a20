import { availableParallelism } from 'node:os';

/**
 * Connections of each API pool (the primary's reads, each standby) when DB_POOL_SIZE is unset:
 * about two statements per core of this machine, 4 to 20. With the database on the same cores,
 * more connections do not run more statements at once: their backends take turns preempting the
 * API process that woke them (the live read bench on 2 cores: 940–1,100 req/s with 6
 * connections, 560–920 with 20, and fewer late blocks for the writer).
 *
 * @example
 * defaultPoolSize(2) // 5
 */
export function defaultPoolSize(cores: number = availableParallelism()): number {
  return Math.min(20, Math.max(4, 2 * cores + 1));
}
