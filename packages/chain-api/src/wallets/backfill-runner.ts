import type { Logger } from 'pino';
import { isMethodNotFound } from '../rpc/index.js';
import { markBackfilling, markFailed, saveDiscovery } from '../store/wallets/tracked-status.js';
import type { TrackedWallet } from '../store/wallets/tracked-store.js';
import {
  type BackfillDeps,
  type BackfillProgress,
  BackfillSupersededError,
  backfillWallet,
} from './backfill-wallet.js';
import { type DiscoveryMethod, LOGS_ONLY_WARNING, probeDiscovery } from './discover-history.js';

interface Running {
  generation: number;
  progress: BackfillProgress;
  startedAt: number;
  abort: AbortController;
}

/** What /health shows of a chain's backfills. */
export interface BackfillStatus {
  discovery: DiscoveryMethod | 'unknown';
  warning?: string;
  running: {
    wallet: string;
    phase: string;
    transactions: number;
    fetched: number;
    seconds: number;
  }[];
  completed: number;
  failed: number;
}

/**
 * Runs wallet backfills of one chain, at most `concurrency` at a time, one per wallet however
 * many requests wait for it (the tracking row is the shared job). Failed backfills are retried
 * with backoff; a backfill whose tracking changed is dropped (the next one starts from the new
 * row). The discovery method is probed once and re-probed when the node stops answering it.
 *
 * @example
 * runner.kick(trackedRows); // starts what is due
 */
export class BackfillRunner {
  private readonly running = new Map<string, Running>();
  private readonly retryAt = new Map<string, number>();
  /** Generation each wallet was last backfilled at (rows read before its commit are stale). */
  private readonly done = new Map<string, number>();
  private method: Promise<DiscoveryMethod> | undefined;
  private resolved: DiscoveryMethod | undefined;
  private completed = 0;
  private failed = 0;

  constructor(
    private readonly deps: () => BackfillDeps | undefined,
    private readonly concurrency: number,
    private readonly log: Logger,
    private readonly onCommitted: (wallet: string) => void,
  ) {}

  /** Rows of the last `kick`: a finished backfill starts the next due one without waiting. */
  private lastRows: readonly TrackedWallet[] = [];

  /** Starts backfills of rows that have a handover and are not ready (up to the limit). */
  kick(rows: readonly TrackedWallet[]): void {
    this.lastRows = rows;
    const deps = this.deps();
    if (!deps) return;
    const now = Date.now();
    for (const r of rows) {
      if (this.running.size >= this.concurrency) return;
      if (r.status === 'ready' || r.handoverBlock === null) continue;
      const current = this.running.get(r.wallet);
      if (current) {
        if (current.generation !== r.generation) current.abort.abort(new Error('superseded'));
        continue;
      }
      if ((this.retryAt.get(r.wallet) ?? 0) > now || this.done.get(r.wallet) === r.generation)
        continue;
      this.start(deps, r);
    }
  }

  private start(deps: BackfillDeps, r: TrackedWallet): void {
    const job: Running = {
      generation: r.generation,
      progress: { phase: 'discover', transactions: 0, fetched: 0 },
      startedAt: Date.now(),
      abort: new AbortController(),
    };
    this.running.set(r.wallet, job);
    const handover = r.handoverBlock as bigint;
    void (async () => {
      try {
        await markBackfilling(deps.db, deps.chain.chainId, r.wallet, r.generation);
        const method = await this.discovery(deps);
        const warning = method === 'logs' ? LOGS_ONLY_WARNING : null;
        await saveDiscovery(deps.db, deps.chain.chainId, r.wallet, method, warning);
        const t0 = performance.now();
        const done = await backfillWallet(
          deps,
          { wallet: r.wallet, generation: r.generation, handover },
          method,
          (p) => {
            job.progress = { ...p };
          },
          job.abort.signal,
        );
        this.completed++;
        if (this.done.size > 100_000) this.done.clear();
        this.done.set(r.wallet, r.generation);
        this.retryAt.delete(r.wallet);
        this.log.info(
          {
            wallet: r.wallet,
            transactions: done.transactions,
            ms: Math.round(performance.now() - t0),
            phases: done.ms,
            method,
          },
          'wallet backfilled',
        );
        this.onCommitted(r.wallet);
      } catch (error) {
        if (error instanceof BackfillSupersededError) {
          // This generation is void: only a newer row (from the next refresh) runs again.
          this.done.set(r.wallet, r.generation);
          return;
        }
        if (job.abort.signal.aborted) return;
        if (isMethodNotFound(error)) this.method = undefined; // the node changed: probe again
        this.failed++;
        const attempt = r.attempts + 1;
        this.retryAt.set(r.wallet, Date.now() + Math.min(60_000, 500 * 2 ** Math.min(attempt, 7)));
        const message = error instanceof Error ? error.message : String(error);
        this.log.warn({ wallet: r.wallet, err: message }, 'wallet backfill failed; will retry');
        await markFailed(deps.db, deps.chain.chainId, r.wallet, r.generation, message).catch(
          () => {},
        );
      } finally {
        this.running.delete(r.wallet);
        // A row changed since (reset, eviction) fails its commit's generation check, and the
        // next refresh kicks again with fresh rows.
        if (!job.abort.signal.aborted) this.kick(this.lastRows);
      }
    })();
  }

  private discovery(deps: BackfillDeps): Promise<DiscoveryMethod> {
    if (!this.method) {
      const p = deps.rpc
        .request<string>('eth_blockNumber', [])
        .then((head) => probeDiscovery(deps.rpc, BigInt(head)));
      this.method = p;
      p.then(
        (m) => {
          if (m === 'logs') this.log.warn(LOGS_ONLY_WARNING);
          this.resolved = m;
        },
        () => {
          if (this.method === p) this.method = undefined;
        },
      );
    }
    return this.method;
  }

  /**
   * Forgets what this runner knows of `wallets` (evicted: their rows are gone, and a new row
   * starts again at generation 0, which must not look already done).
   */
  forget(wallets: readonly string[]): void {
    for (const w of wallets) {
      this.done.delete(w);
      this.retryAt.delete(w);
    }
  }

  /** Aborts every running backfill (shutdown, lost leadership). */
  stop(): void {
    for (const r of this.running.values()) r.abort.abort(new Error('stopped'));
  }

  status(): BackfillStatus {
    const now = Date.now();
    return {
      discovery: this.resolved ?? 'unknown',
      ...(this.resolved === 'logs' ? { warning: LOGS_ONLY_WARNING } : {}),
      running: [...this.running].map(([wallet, r]) => ({
        wallet,
        phase: r.progress.phase,
        transactions: r.progress.transactions,
        fetched: r.progress.fetched,
        seconds: Math.round((now - r.startedAt) / 100) / 10,
      })),
      completed: this.completed,
      failed: this.failed,
    };
  }
}
