import { availableParallelism } from 'node:os';

/**
 * Connections of each API pool (the primary's reads, each standby) when DB_POOL_SIZE is unset:
 * 4 per core of this machine plus 2, 6 to 20. A connection is held from the statement's start
 * until the API's event loop gets to its result, which under load is mostly the loop's own delay,
 * not the database's work: with 5 connections on 2 cores a miss of the live read bench waited
 * 24-27 ms (median) for one while the database was mostly idle; 10 gave the same throughput with
 * a p99 of 62-70 ms instead of 93-97. Many more do not run more statements at once when the
 * database shares the cores: their backends preempt the API process (an earlier run of that
 * bench, most answers uncached: 940–1,100 req/s with 6 connections, 560–920 with 20).
 *
 * @example
 * defaultPoolSize(2) // 10
 */
export function defaultPoolSize(cores: number = availableParallelism()): number {
  return Math.min(20, Math.max(6, 4 * cores + 2));
}
