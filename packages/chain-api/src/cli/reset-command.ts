import type { AppConfig } from '../config/index.js';
import { createLeaderLock } from '../ingest/leader-lock.js';
import { resetChainData } from '../ingest/reset-chain.js';
import { openStore } from './open-store.js';

const usage = `Usage:
  sluice-chain reset <chainId>   delete everything indexed for one chain (it is re-indexed from its
                                 start block at the next start); needed after the node's chain was
                                 replaced (new genesis, or a fork deeper than the stored window)`;

/**
 * `sluice-chain reset <chainId>`: deletes a chain's indexed data from the store. Refuses while
 * another process indexes the chain (its leader lock is held), so data is never pulled from under
 * a running indexer.
 *
 * @example
 * await resetCommand(['31337'], config, console.log); // 0
 */
export async function resetCommand(
  args: string[],
  config: AppConfig,
  out: (line: string) => void,
): Promise<number> {
  const [id, ...rest] = args;
  if (!id || rest.length > 0 || !/^\d{1,15}$/.test(id) || Number(id) <= 0) {
    out(id && rest.length === 0 ? `not a chain id: "${id.slice(0, 40)}"\n\n${usage}` : usage);
    return 2;
  }
  const chainId = Number(id);
  const db = await openStore(config);
  const lock = createLeaderLock(db, chainId);
  try {
    if (!(await lock.tryAcquire())) {
      out(
        `chain ${chainId} is being indexed by a running sluice-chain process; stop it, then run reset again`,
      );
      return 1;
    }
    const deleted = await resetChainData(db, chainId);
    const total = Object.values(deleted).reduce((a, b) => a + b, 0);
    if (total === 0) {
      out(`chain ${chainId}: nothing indexed, nothing to delete`);
    } else {
      const parts = Object.entries(deleted).map(([table, n]) => `${table} ${n}`);
      out(
        `chain ${chainId}: deleted ${total} rows (${parts.join(', ')}); it is re-indexed at the next start`,
      );
    }
    return 0;
  } finally {
    await lock.release();
    await db.close();
  }
}
