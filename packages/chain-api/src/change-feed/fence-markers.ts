import { randomBytes } from 'node:crypto';
import { readStartedAfter } from './coalesced.js';

/**
 * Markers a feed sends through the primary and waits to see come back behind the changes
 * committed before them: `sync()` resolves `true` when its marker arrived, `false` after
 * `timeoutMs` or when sending failed. Concurrent callers share a marker sent after their call
 * (`readStartedAfter`), so a burst of requests costs one or two round trips.
 *
 * @example
 * const markers = new FenceMarkers((id) => listener.notify(fenceChannel, id), 1_000);
 * // on the marker's notification, after the changes before it are delivered:
 * markers.arrived(payload);
 * const caughtUp = await markers.sync();
 */
export class FenceMarkers {
  readonly #prefix = randomBytes(6).toString('hex');
  readonly #waiting = new Map<string, (ok: boolean) => void>();
  readonly #send: (id: string) => Promise<void>;
  readonly #timeoutMs: number;
  #seq = 0;
  /** Until then, after a marker that did not come back, `sync()` fails at once. */
  #coolOffUntil = 0;
  readonly #roundTrips: () => Promise<boolean>;

  constructor(send: (id: string) => Promise<void>, timeoutMs: number) {
    this.#send = send;
    this.#timeoutMs = timeoutMs;
    this.#roundTrips = readStartedAfter(() => this.#roundTrip());
  }

  /**
   * `true` once a marker sent after this call came back. After a marker timed out, calls fail
   * at once for as long as the timeout, so a silent primary or relay costs each request at
   * most one timeout, not one per request.
   */
  sync(): Promise<boolean> {
    if (Date.now() < this.#coolOffUntil) return Promise.resolve(false);
    return this.#roundTrips();
  }

  /** Whether `id` is one of this feed's markers (others' markers are ignored). */
  owns(id: string): boolean {
    return id.startsWith(this.#prefix);
  }

  /** A marker came back (call it only after delivering every change received before it). */
  arrived(id: string): void {
    this.#settle(id, true);
  }

  /** The feed went down: markers in flight will not come back. */
  failAll(): void {
    for (const resolve of this.#waiting.values()) resolve(false);
    this.#waiting.clear();
  }

  async #roundTrip(): Promise<boolean> {
    const id = `${this.#prefix}-${++this.#seq}`;
    const back = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#coolOffUntil = Date.now() + this.#timeoutMs;
        this.#settle(id, false);
      }, this.#timeoutMs);
      timer.unref();
      this.#waiting.set(id, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });
    // A send that hangs is covered by the timeout too.
    this.#send(id).catch(() => this.#settle(id, false));
    return back;
  }

  #settle(id: string, ok: boolean): void {
    const resolve = this.#waiting.get(id);
    this.#waiting.delete(id);
    resolve?.(ok);
  }
}
