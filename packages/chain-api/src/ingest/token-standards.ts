import type { Queryable } from '@sluice/db';
import { readTokenStandards } from '../store/token-standards.js';

const MAX_ENTRIES = 200_000;

/**
 * The indexer's memory of token standards it has seen stored, so a batch reads the `tokens`
 * table (and the node, for new tokens) only for addresses it has not met. Bounded: cleared when
 * full. Must be cleared whenever the store may have lost rows (restart, rollback, reset).
 *
 * @example
 * const unknown = await standards.load(db, [...batch.tokens.keys()]); // still unknown after the store
 */
export class TokenStandards {
  private readonly known = new Map<string, string>();

  constructor(private readonly chainId: number) {}

  get(address: string): string | undefined {
    return this.known.get(address);
  }

  remember(address: string, standard: string): void {
    if (this.known.size > MAX_ENTRIES) this.known.clear();
    this.known.set(address, standard);
  }

  clear(): void {
    this.known.clear();
  }

  /** Looks up the addresses not in memory in the store; returns those the store does not know. */
  async load(db: Queryable, addresses: readonly string[]): Promise<string[]> {
    const unknown = addresses.filter((a) => !this.known.has(a));
    if (unknown.length === 0) return [];
    const stored = await readTokenStandards(db, this.chainId, unknown);
    for (const [address, standard] of stored) this.remember(address, standard);
    return unknown.filter((a) => !this.known.has(a));
  }
}
