import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import type { DerivedBatch } from '../derive/index.js';
import type { WalletStorage } from '../ingest/indexer-mode.js';
import { lockCheckpoint } from '../store/checkpoints.js';
import { resetTracked, setHandover } from '../store/wallets/tracked-status.js';
import {
  countTracked,
  deleteWalletData,
  listTracked,
  listUnready,
} from '../store/wallets/tracked-store.js';
import { evictBeyondCaps } from '../store/wallets/wallet-eviction.js';
import { BackfillRunner, type BackfillStatus } from './backfill-runner.js';
import type { BackfillDeps } from './backfill-wallet.js';
import { filterBatch } from './filter-batch.js';
import type { PoolBootstrapStatus } from './pool-bootstrap.js';
import { rateLimitedRpc } from './rate-limited-rpc.js';
import type { WalletsOptions } from './wallets-options.js';

/** Per-chain wallets-mode state in /health. */
export interface WalletsStatus extends BackfillStatus {
  mode: 'wallets';
  /** The one-time bootstrap of the factories' earlier pools (chains with factories). */
  pool_bootstrap?: PoolBootstrapStatus;
  tracked: number;
  max_wallets: number;
  max_wallets_per_key: number;
  ready: number;
  pending: number;
}

const EVICT_EVERY_MS = 5_000;
/** Due backfill rows read per refresh (in order: reads first); the runner starts a few of them. */
const KICK_ROWS = 1_000;

/**
 * The head follower's side of wallets mode (run by the chain's leader): which wallets a batch
 * keeps, when each new wallet's history hands over from its backfill to the follower, dropping
 * a wallet's data after a reorg below its handover or on eviction, and the backfill runner.
 *
 * Handover: `refresh` runs between two `advance` steps of the indexer (no batch in flight). It
 * sets `handover_block` = the current checkpoint for every new wallet, in a transaction holding
 * the checkpoint row, then publishes the new tracked set; every later batch (blocks above the
 * handover) keeps the wallet's rows, and its backfill covers the blocks up to the handover.
 *
 * @example
 * await mode.refresh(checkpoint); // in the indexer loop
 * const kept = mode.filter(batch); // in prepare
 */
export class WalletsMode {
  private tracked: ReadonlySet<string> = new Set();
  /** Tracked wallets whose backfill was done at the last reload (their stored balances are whole). */
  private ready: ReadonlySet<string> = new Set();
  private lastEvict = 0;
  private highest: bigint | null = null;
  private counts: Record<string, number> = {};
  private readonly runner: BackfillRunner;

  constructor(
    private readonly db: Database,
    private readonly chain: ChainConfig,
    private readonly opts: WalletsOptions,
    private readonly log: Logger,
    deps: () => Omit<BackfillDeps, 'db' | 'chain'> | undefined,
    signal: AbortSignal,
  ) {
    let limited: BackfillDeps['rpc'] | undefined;
    this.runner = new BackfillRunner(
      () => {
        const d = deps();
        if (!d) return undefined;
        limited ??= rateLimitedRpc(d.rpc, opts.rpcPerSecond, signal);
        return { ...d, db, chain, rpc: limited };
      },
      opts.concurrency,
      log.child({ component: 'wallet-backfill' }),
      () => {
        // Recount at the next refresh, so /health shows the wallet ready.
        this.lastEvict = 0;
      },
    );
  }

  /** A new chain in wallets mode follows from the current head, not from its start block. */
  followFrom(head: bigint): ChainConfig {
    return { ...this.chain, startBlock: head };
  }

  /**
   * The batch's rows of tracked wallets, plus every pool event (pricing) and the ERC20 balance
   * changes of `holders` (v3 pools, see pool-bootstrap.ts).
   */
  filter(batch: DerivedBatch, holders?: (wallet: string) => boolean): DerivedBatch {
    const tracked = this.tracked;
    return filterBatch(batch, (w) => tracked.has(w), { pools: true, holders });
  }

  /**
   * What the store holds of `wallet`: nothing unless it is handed over (batches keep its rows
   * from then on); its balances are complete once its backfill is done.
   */
  stores(wallet: string): WalletStorage {
    if (!this.tracked.has(wallet)) return 'none';
    return this.ready.has(wallet) ? 'complete' : 'rows';
  }

  /**
   * Between batches: drops wallets whose handover or balances are above a rolled-back
   * checkpoint (their backfill runs again), evicts beyond the cap, hands new wallets over at
   * `cp`, reloads the tracked set and starts due backfills.
   */
  async refresh(cp: { block: bigint }): Promise<void> {
    const id = this.chain.chainId;
    let reload = this.tracked.size === 0;
    if (this.highest === null || cp.block < this.highest)
      reload = (await this.resetAbove(cp.block)) || reload;
    this.highest = this.highest === null || cp.block > this.highest ? cp.block : this.highest;
    if (Date.now() - this.lastEvict > EVICT_EVERY_MS) {
      this.lastEvict = Date.now();
      await this.evict();
      this.counts = await countTracked(this.db, id);
      reload = true;
    }
    let handed: string[] = [];
    await this.db.transaction(async (tx) => {
      if ((await lockCheckpoint(tx, id)) !== cp.block) return; // moved: next refresh
      handed = await setHandover(tx, id, cp.block);
    });
    // Wallets only leave the set here (reset, eviction: a full reload every few seconds);
    // between reloads it grows by the wallets just handed over. The runner only needs the
    // next due rows (reads first), never all of a bulk-tracked queue on every batch.
    if (reload) {
      const rows = await listTracked(this.db, id);
      this.tracked = new Set(rows.filter((r) => r.handoverBlock !== null).map((r) => r.wallet));
      this.ready = new Set(rows.filter((r) => r.status === 'ready').map((r) => r.wallet));
      this.runner.kick(rows.filter((r) => r.status !== 'ready').slice(0, KICK_ROWS));
    } else {
      if (handed.length > 0) this.tracked = new Set([...this.tracked, ...handed]);
      this.runner.kick(await listUnready(this.db, id, KICK_ROWS));
    }
  }

  /** True when some wallet was reset. */
  private async resetAbove(block: bigint): Promise<boolean> {
    const id = this.chain.chainId;
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ wallet: string }>(
        `select wallet from tracked_wallets
          where chain_id = $1 and (handover_block > $2 or balances_block > $2) for update`,
        [id, block.toString()],
      );
      if (rows.length === 0) return false;
      const wallets = rows.map((r) => r.wallet);
      this.log.info(
        { wallets: wallets.length, block: Number(block) },
        'reorg below wallet handovers: backfilling them again',
      );
      await deleteWalletData(tx, id, wallets);
      await resetTracked(tx, id, wallets);
      return true;
    });
  }

  /**
   * Per-key caps: a key's least recently requested wallets beyond its cap lose that key's
   * tracking; a wallet no key tracks any more is dropped with its data. A key flooding the
   * tracker only ever evicts its own wallets.
   */
  private async evict(): Promise<void> {
    const id = this.chain.chainId;
    await this.db.transaction(async (tx) => {
      const wallets = await evictBeyondCaps(tx, id, {
        perKey: this.opts.maxPerKey,
        total: this.opts.maxWallets,
      });
      if (wallets.length === 0) return;
      await deleteWalletData(tx, id, wallets);
      this.runner.forget(wallets);
      this.log.info({ evicted: wallets.length }, 'wallets no key tracks any more evicted');
    });
  }

  stop(): void {
    this.runner.stop();
  }

  status(): WalletsStatus {
    const c = this.counts;
    return {
      mode: 'wallets',
      tracked: Object.values(c).reduce((a, b) => a + b, 0),
      max_wallets: this.opts.maxWallets,
      max_wallets_per_key: this.opts.maxPerKey,
      ready: c.ready ?? 0,
      pending: (c.pending ?? 0) + (c.backfilling ?? 0) + (c.failed ?? 0),
      ...this.runner.status(),
    };
  }
}
