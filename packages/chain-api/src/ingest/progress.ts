import type { Logger } from 'pino';
import type { IndexStats } from './indexer-types.js';

/**
 * Backfill progress: a single self-rewriting line (blocks/s, events/s, ETA) when stderr is a TTY,
 * else a structured log line every 10 s.
 */
export class Progress {
  private startBlock = 0n;
  private goal = 0n;
  private at = 0n;
  private blocks = 0;
  private events = 0;
  private readonly t0 = Date.now();
  private lastPrint = 0;
  private printed = false;
  private summarized = false;
  private readonly tty: boolean;

  constructor(
    private readonly log: Logger,
    private readonly name: string,
    /** Log lines even on a terminal (CI). */
    plain = false,
  ) {
    this.tty = Boolean(process.stderr.isTTY) && !plain;
  }

  target(from: bigint, head: bigint): void {
    if (this.goal === 0n) this.startBlock = from;
    this.goal = head;
  }

  /** A committed batch; `stats` (the indexer's totals) are logged once the backfill reaches its goal. */
  tick(block: bigint, blocks: number, events: number, stats?: IndexStats): void {
    this.at = block;
    this.blocks += blocks;
    this.events += events;
    const now = Date.now();
    if (stats && !this.summarized && this.at >= this.goal) {
      this.summarized = true;
      const seconds = Math.round((now - this.t0) / 100) / 10;
      this.log.info({ block: Number(block), seconds, ...stats }, 'backfill reached the head');
    }
    const every = this.tty ? 200 : 10_000;
    if (now - this.lastPrint < every) return;
    this.lastPrint = now;
    const secs = Math.max(0.001, (now - this.t0) / 1000);
    const bps = this.blocks / secs;
    const eps = this.events / secs;
    const left = Number(this.goal - this.at);
    const eta = bps > 0 && left > 0 ? Math.round(left / bps) : 0;
    if (this.tty) {
      const total = Number(this.goal - this.startBlock) || 1;
      const pct = Math.min(100, Math.round((Number(this.at - this.startBlock) / total) * 100));
      const bar = '#'.repeat(Math.round(pct / 5)).padEnd(20, '.');
      process.stderr.write(
        `\r${this.name} [${bar}] ${pct}% block ${this.at}/${this.goal} ${bps.toFixed(0)} blk/s ${eps.toFixed(0)} ev/s ETA ${eta}s   `,
      );
      this.printed = true;
    } else {
      this.log.info(
        {
          block: Number(this.at),
          head: Number(this.goal),
          blocksPerSec: Math.round(bps),
          eventsPerSec: Math.round(eps),
          etaSec: eta,
        },
        'indexing progress',
      );
    }
  }

  done(): void {
    if (this.printed) process.stderr.write('\n');
    this.printed = false;
  }
}
