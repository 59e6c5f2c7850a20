import { STORE_CHANGED_CHANNEL } from '../store/changes/store-change.js';

export { STORE_CHANGED_CHANNEL };

/**
 * The NOTIFY channels carried to API processes. A module that announces changes on a channel of
 * its own adds it here, and every transport (primary LISTEN, Redis relay) carries it too.
 */
export const changeChannels: readonly string[] = [STORE_CHANGED_CHANNEL];

/** One NOTIFY message as the transport carries it (its payload parses into a `StoreChange`). */
export interface FeedMessage {
  channel: string;
  /** The NOTIFY payload, opaque to the transport. */
  payload: string;
  /**
   * The primary's WAL position read after the notification arrived, so at or past the commit
   * that sent it; undefined when the feed was opened without positions (no standbys to gate).
   */
  lsn: bigint | undefined;
}

export interface ChangeFeedHandlers {
  onChange(change: FeedMessage): void;
  /**
   * `false`: announcements may be missed from now on (callers bypass what they cache); `true`:
   * delivered again, with the primary's position then when known (anything may have changed).
   */
  onConnectionChange?(connected: boolean, lsn: bigint | undefined): void;
}

/** Where API processes learn that the store changed, whichever server they read from. */
export interface ChangeFeed {
  readonly connected: boolean;
  /**
   * Resolves `true` once every change committed before the call has been delivered to the
   * subscribers (a marker sent through the primary comes back behind them), `false` when that
   * cannot be known within the feed's fence timeout (feed down, primary or relay silent).
   * Concurrent callers share markers. What another API process served was committed before
   * the request reached this one, so after `sync()` this process knows of it too.
   */
  sync(): Promise<boolean>;
  /** Handlers are called in subscription order (the read router first: see `followFeed`). */
  subscribe(handlers: ChangeFeedHandlers): () => void;
  close(): Promise<void>;
}

/** The subscriber list and connection flag every transport shares. */
export class FeedHub {
  connected: boolean;
  readonly #handlers = new Set<ChangeFeedHandlers>();

  constructor(connected: boolean) {
    this.connected = connected;
  }

  subscribe(handlers: ChangeFeedHandlers): () => void {
    this.#handlers.add(handlers);
    return () => this.#handlers.delete(handlers);
  }

  change(change: FeedMessage): void {
    for (const h of this.#handlers) h.onChange(change);
  }

  connection(connected: boolean, lsn: bigint | undefined): void {
    if (connected === this.connected && !connected) return;
    this.connected = connected;
    for (const h of this.#handlers) h.onConnectionChange?.(connected, lsn);
  }
}
