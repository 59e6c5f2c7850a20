import type { Database } from '@sluice/db';

/** The channel the store's statement triggers notify (payload: the changed table's schema). */
export const STORE_CHANGED_CHANNEL = 'sluice_store_changed';

/** A counter that moves whenever anything the API serves may have changed. */
export interface StoreVersion {
  /** The current version; `undefined` while changes may be going unnoticed (listener down). */
  current(): number | undefined;
  close(): Promise<void>;
}

/**
 * Follows `NOTIFY sluice_store_changed` from the triggers on every table the API reads (see
 * `store-change-migrations.ts`), whichever process wrote: the indexer, pricing, the NFT worker
 * or a manual fix. Notifications of other schemas in the same database are ignored. While the
 * listening connection is down the version is unknown, so callers bypass their caches.
 *
 * @example
 * const version = await watchStoreVersion(db);
 * const v = version.current(); // compare with the version a cached answer was computed under
 */
export async function watchStoreVersion(db: Database): Promise<StoreVersion> {
  const { rows } = await db.query<{ schema: string }>('select current_schema() as schema');
  const schema = rows[0]?.schema ?? 'public';
  let version = 0;
  let connected = true;
  const listener = await db.listen(
    STORE_CHANGED_CHANNEL,
    (payload) => {
      if (payload === schema) version++;
    },
    {
      onConnectionChange(up) {
        connected = up;
        // Whatever happened while nobody listened: treat it as a change.
        version++;
      },
    },
  );
  return {
    current: () => (connected ? version : undefined),
    close: () => listener.close(),
  };
}
