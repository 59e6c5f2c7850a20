import type { Queryable } from '@sluice/db';
import type { ApiWarning } from '../api/chain-selector.js';
import type { ChainConfig } from '../chains/index.js';
import { readTracked, type TrackedWallet, trackWallets } from './tracked-store.js';

/** What a wallet answer must add while (or because of how) the wallet's history was backfilled. */
export interface GateResult {
  warnings: ApiWarning[];
  /** Set while some chain's backfill is still running: the answer is partial, send Retry-After. */
  retryAfterSeconds?: number;
}

/** First-request handling of wallets-mode chains. */
export interface WalletGate {
  /**
   * Tracks `wallet` on the wallets-mode chains among `chainIds` (marking it requested now) and
   * waits up to the configured time for their backfills.
   */
  ensure(wallet: string, chainIds: readonly number[]): Promise<GateResult>;
}

const POLL_MS = 50;
const RETRY_AFTER_SECONDS = 2;

/**
 * The API side of wallets mode: any replica inserts the tracking row (the shared job the
 * chain's leader runs) and polls it; concurrent first requests for one wallet in this process
 * share one wait.
 *
 * @example
 * const gate = createWalletGate(db, chains, { waitMs: 10_000 });
 * const { warnings, retryAfterSeconds } = await gate.ensure(wallet, [1]);
 */
export function createWalletGate(
  db: Queryable,
  chains: readonly ChainConfig[],
  opts: { waitMs: number },
): WalletGate {
  const walletChains = new Set(chains.filter((c) => c.mode === 'wallets').map((c) => c.chainId));
  const waits = new Map<string, Promise<TrackedWallet[]>>();

  const waitFor = (chainId: number, wallet: string): Promise<TrackedWallet[]> => {
    const key = `${chainId}|${wallet}`;
    let p = waits.get(key);
    if (!p) {
      p = (async () => {
        let rows = await trackWallets(db, chainId, [wallet]);
        const deadline = Date.now() + opts.waitMs;
        while (rows[0]?.status !== 'ready' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, Math.min(POLL_MS, deadline - Date.now())));
          rows = await readTracked(db, chainId, [wallet]);
        }
        return rows;
      })().finally(() => waits.delete(key));
      waits.set(key, p);
    }
    return p;
  };

  return {
    async ensure(wallet, chainIds) {
      const ids = chainIds.filter((id) => walletChains.has(id));
      if (ids.length === 0) return { warnings: [] };
      const rows = await Promise.all(
        ids.map(async (id) => ({ id, row: (await waitFor(id, wallet))[0] })),
      );
      const pending = rows.filter((r) => r.row?.status !== 'ready').map((r) => r.id);
      const logsOnly = rows
        .filter((r) => r.row?.status === 'ready' && r.row.warning)
        .map((r) => r.id);
      const warnings: ApiWarning[] = [];
      if (pending.length > 0) {
        warnings.push({
          code: 'WALLET_BACKFILL_IN_PROGRESS',
          message:
            "This wallet's history is still being loaded on these chains: the answer holds what is known so far. Retry after the Retry-After delay.",
          chain_ids: pending,
        });
      }
      if (logsOnly.length > 0) {
        warnings.push({
          code: 'WALLET_HISTORY_LOGS_ONLY',
          message: rows.find((r) => logsOnly.includes(r.id))?.row?.warning ?? '',
          chain_ids: logsOnly,
        });
      }
      return pending.length > 0
        ? { warnings, retryAfterSeconds: RETRY_AFTER_SECONDS }
        : { warnings };
    },
  };
}
