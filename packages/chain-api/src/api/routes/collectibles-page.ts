import {
  type CollectibleKey,
  type CollectibleRow,
  type CollectiblesQuery,
  selectCollectibles,
} from '../queries/collectibles-query.js';
import type { ReadDb } from '../queries/prepared-query.js';

/** Bytes of entries one collectibles answer carries at most (a page ends early beyond). */
export const COLLECTIBLES_MAX_ENTRY_BYTES = 16 * 1024 * 1024;
/** Rows read per query while a page fills (each up to a few hundred KiB). */
const CHUNK = 100;

/** One page of shaped entries and where the next starts. */
export interface CollectiblesPage {
  entries: Record<string, unknown>[];
  /** The collections the entries show (cache dependencies). */
  collections: { chain_id: number; contract: string }[];
  /** Key of the last entry when more rows follow. */
  next: CollectibleKey | undefined;
}

/**
 * Reads and shapes up to `limit` entries in chunks of 100 rows, ending the page early (with a
 * next key) once the entries reach `maxBytes` as JSON: at least one entry is always served, so
 * a client paging on always advances. Memory stays within one chunk plus the page.
 *
 * @example
 * const page = await loadCollectiblesPage(db, query, (row) => shapeCollectible(row, chain, false));
 */
export async function loadCollectiblesPage(
  db: ReadDb,
  q: CollectiblesQuery,
  shape: (row: CollectibleRow) => Record<string, unknown>,
  maxBytes: number = COLLECTIBLES_MAX_ENTRY_BYTES,
): Promise<CollectiblesPage> {
  const page: CollectiblesPage = { entries: [], collections: [], next: undefined };
  let bytes = 0;
  let after = q.after;
  while (page.entries.length < q.limit) {
    const want = Math.min(CHUNK, q.limit - page.entries.length);
    const rows = await selectCollectibles(db, { ...q, after, limit: want + 1 });
    const more = rows.length > want;
    for (const row of rows.slice(0, want)) {
      const entry = shape(row);
      const size = Buffer.byteLength(JSON.stringify(entry)) + 1;
      const key: CollectibleKey = [row.chain_id, row.contract, row.token_id];
      if (page.entries.length > 0 && bytes + size > maxBytes) {
        page.next = after;
        return page;
      }
      bytes += size;
      page.entries.push(entry);
      page.collections.push({ chain_id: row.chain_id, contract: row.contract });
      after = key;
    }
    if (!more) return page;
  }
  page.next = after;
  return page;
}
