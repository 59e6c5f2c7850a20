import type { Queryable } from '@sluice/db';
import type { ChainConfig } from '../../chains/chain-config.js';
import type { RpcClient } from '../../rpc/create-rpc-client.js';
import type { ChainStatus, StatusSource } from '../readiness.js';
import { createRateWindow, type RateSample } from './rate-samples.js';
import { readWorkerQueues, type WorkerQueue } from './worker-queues.js';

type Support = 'supported' | 'unsupported' | 'unknown';

/** One chain's entry of `GET /v1/console/status`. */
export interface ChainConsoleStatus extends Omit<ChainStatus, 'reorgs'> {
  eta_seconds: number | null;
  capabilities: {
    traces: Support;
    archive: Support;
    multicall3: string | null;
    block_receipts: boolean | null;
  };
  rates: RateSample[];
  /** Reorgs the indexer of this process repaired; null where no indexer runs here (API-only). */
  reorgs: { count: number; deepest: number } | null;
  workers: WorkerQueue[];
}

export interface ConsoleStatusBody {
  generated_at: string;
  chains: ChainConsoleStatus[];
  /** Compute-unit metering per key: none in this server yet. */
  usage: null;
  /** Subscription deliveries: none in this server yet. */
  subscriptions: null;
}

export interface ConsoleStatusOptions {
  db: Queryable;
  chains: readonly ChainConfig[];
  statusSource: StatusSource;
  rpc?: ReadonlyMap<number, RpcClient> | undefined;
  /** Observations closer than this are not taken (many console tabs poll). Default 2 s. */
  sampleEveryMs?: number;
  /** How far back the rate chart goes. Default 10 min. */
  windowMs?: number;
}

interface CapabilityRow {
  chain_id: number;
  capabilities: { traces?: boolean; blockReceipts?: boolean; multicall3?: string | null } | null;
}

const ARCHIVE_PROBE_MS = 5_000;

/**
 * What the console shows, beyond /health: rates over the last minutes (observed here while
 * someone watches: every status request may take one observation, at most one per
 * `sampleEveryMs`), an ETA, node capabilities (archive reads probed once per chain with
 * `eth_getBalance` at block 1) and the workers' queues.
 *
 * @example
 * const status = createConsoleStatus({ db, chains, statusSource, rpc });
 * const body = await status.snapshot();
 */
export function createConsoleStatus(opts: ConsoleStatusOptions) {
  const sampleEveryMs = opts.sampleEveryMs ?? 2_000;
  const windows = new Map(
    opts.chains.map((c) => [c.chainId, createRateWindow(opts.windowMs ?? 600_000)]),
  );
  const archive = new Map<number, Support>();
  let last: { at: number; body: Promise<ConsoleStatusBody> } | undefined;

  const probeArchive = (chainId: number) => {
    const rpc = opts.rpc?.get(chainId);
    if (!rpc || archive.has(chainId)) return;
    archive.set(chainId, 'unknown');
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('timeout')), ARCHIVE_PROBE_MS).unref(),
    );
    Promise.race([
      rpc.request('eth_getBalance', ['0x0000000000000000000000000000000000000000', '0x1']),
      timeout,
    ]).then(
      () => archive.set(chainId, 'supported'),
      (error: unknown) => {
        // "missing trie node" and kin: the node prunes old state. Anything else: ask again later.
        const message = error instanceof Error ? error.message : String(error);
        if (/missing trie node|state.*(not available|pruned)|historical state/i.test(message)) {
          archive.set(chainId, 'unsupported');
        } else {
          archive.delete(chainId);
        }
      },
    );
  };

  async function observe(statuses: ChainStatus[], now: number): Promise<void> {
    for (const s of statuses) {
      const window = windows.get(s.chain_id);
      if (!window || s.indexed_block === null) continue;
      const previous = window.last();
      if (previous && now - previous.at < sampleEveryMs) continue;
      let events = 0;
      if (previous && s.indexed_block > previous.indexed) {
        const { rows } = await opts.db.query<{ n: string }>(
          `select count(*)::text as n from activity
            where chain_id = $1 and block_number > $2 and block_number <= $3`,
          [s.chain_id, previous.indexed, s.indexed_block],
        );
        events = Number(rows[0]?.n ?? 0);
      }
      window.observe({ at: now, indexed: s.indexed_block, events });
    }
  }

  async function build(): Promise<ConsoleStatusBody> {
    const now = Date.now();
    const statuses = await opts.statusSource.status();
    const ids = statuses.map((s) => s.chain_id);
    const [caps, queues] = await Promise.all([
      opts.db.query<CapabilityRow>(
        'select chain_id, capabilities from checkpoints where chain_id = any($1::int[])',
        [ids],
      ),
      readWorkerQueues(opts.db, ids),
      observe(statuses, now),
    ]);
    const capsById = new Map(caps.rows.map((row) => [row.chain_id, row.capabilities]));
    return {
      generated_at: new Date(now).toISOString(),
      chains: statuses.map((s) => {
        probeArchive(s.chain_id);
        const c = capsById.get(s.chain_id) ?? null;
        const window = windows.get(s.chain_id);
        return {
          ...s,
          eta_seconds: s.ready ? 0 : (window?.eta(s.head_block) ?? null),
          capabilities: {
            traces: s.traces ?? (c ? (c.traces ? 'supported' : 'unsupported') : 'unknown'),
            archive: archive.get(s.chain_id) ?? 'unknown',
            multicall3: c?.multicall3 ?? null,
            block_receipts: c ? Boolean(c.blockReceipts) : null,
          },
          rates: window?.samples() ?? [],
          reorgs: s.reorgs ?? null,
          workers: queues.get(s.chain_id) ?? [],
        };
      }),
      usage: null,
      subscriptions: null,
    };
  }

  return {
    /** The current status; concurrent and sub-second repeated calls share one build. */
    snapshot(): Promise<ConsoleStatusBody> {
      const now = Date.now();
      if (!last || now - last.at >= 500) {
        const body = build();
        body.catch(() => {});
        last = { at: now, body };
      }
      return last.body;
    },
  };
}
