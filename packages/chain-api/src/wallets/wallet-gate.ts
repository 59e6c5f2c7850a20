import type { Queryable } from '@sluice/db';
import type { ChainConfig } from '../chains/index.js';
import { readTracked, type TrackedWallet, trackWallets } from '../store/wallets/tracked-store.js';
import type { WalletWarning } from './wallet-warning.js';

/** What a wallet answer must add while (or because of how) the wallet's history was backfilled. */
export interface GateResult {
  warnings: WalletWarning[];
  /** Set while some chain's backfill is still running: the answer is partial, send Retry-After. */
  retryAfterSeconds?: number;
}

/** First-request handling of wallets-mode chains. */
export interface WalletGate {
  /**
   * Tracks `wallet` for `keyId` ('' = no key) on the wallets-mode chains among `chainIds`
   * (marking it requested now; its backfill goes ahead of bulk-tracked ones) and waits up to the
   * configured time for their backfills.
   */
  ensure(wallet: string, chainIds: readonly number[], keyId?: string): Promise<GateResult>;
}

const POLL_MS = 50;
const RETRY_AFTER_SECONDS = 2;

interface Waiter {
  wallet: string;
  deadline: number;
  rows: TrackedWallet[];
  resolve: (rows: TrackedWallet[]) => void;
  reject: (error: unknown) => void;
}

/**
 * The API side of wallets mode: any replica inserts the tracking row (the shared job the
 * chain's leader runs) and polls it; concurrent first requests for one wallet in this process
 * share one wait, and every wallet waited for on a chain is polled by one query per tick (100
 * waiting wallets polled one by one made 2,000 queries a second, on the database the backfills
 * commit to).
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
  const waiting = new Map<number, Set<Waiter>>();
  let timer: NodeJS.Timeout | undefined;

  const poll = async () => {
    for (const [chainId, set] of waiting) {
      const list = [...set];
      let rows: TrackedWallet[];
      try {
        rows = await readTracked(db, chainId, [...new Set(list.map((w) => w.wallet))]);
      } catch (error) {
        for (const w of list) {
          set.delete(w);
          w.reject(error);
        }
        continue;
      }
      const byWallet = new Map(rows.map((r) => [r.wallet, r]));
      const now = Date.now();
      for (const w of list) {
        const row = byWallet.get(w.wallet);
        w.rows = row ? [row] : [];
        if (row?.status === 'ready' || now >= w.deadline) {
          set.delete(w);
          w.resolve(w.rows);
        }
      }
      if (set.size === 0) waiting.delete(chainId);
    }
  };
  const schedule = () => {
    if (timer || waiting.size === 0) return;
    const next = Math.min(...[...waiting.values()].flatMap((s) => [...s].map((w) => w.deadline)));
    timer = setTimeout(
      () => {
        void poll().finally(() => {
          timer = undefined;
          schedule();
        });
      },
      Math.max(0, Math.min(POLL_MS, next - Date.now())),
    );
  };

  const waitFor = (chainId: number, wallet: string, keyId: string): Promise<TrackedWallet[]> => {
    const key = `${chainId}|${wallet}|${keyId}`;
    let p = waits.get(key);
    if (!p) {
      p = (async () => {
        const rows = await trackWallets(db, chainId, [wallet], { keyId, priority: 'read' });
        if (rows[0]?.status === 'ready' || opts.waitMs <= 0) return rows;
        return new Promise<TrackedWallet[]>((resolve, reject) => {
          const set = waiting.get(chainId) ?? new Set<Waiter>();
          set.add({ wallet, deadline: Date.now() + opts.waitMs, rows, resolve, reject });
          waiting.set(chainId, set);
          schedule();
        });
      })().finally(() => waits.delete(key));
      waits.set(key, p);
    }
    return p;
  };

  return {
    async ensure(wallet, chainIds, keyId = '') {
      const ids = chainIds.filter((id) => walletChains.has(id));
      if (ids.length === 0) return { warnings: [] };
      const rows = await Promise.all(
        ids.map(async (id) => ({ id, row: (await waitFor(id, wallet, keyId))[0] })),
      );
      const pending = rows.filter((r) => r.row?.status !== 'ready').map((r) => r.id);
      const logsOnly = rows
        .filter((r) => r.row?.status === 'ready' && r.row.warning)
        .map((r) => r.id);
      const warnings: WalletWarning[] = [];
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
