import { BodyBudgetExceededError, TooManyRequestsError } from '../errors.js';
import type { BodyAllowance } from './types.js';

/** Seconds a client is told to wait (`Retry-After`) after a 429 or 503. */
export const RETRY_AFTER_SECONDS = 5;

/** One admitted request: its share of the byte budget, given back by `release()`. */
export interface Admission extends BodyAllowance {
  /** The request is answered: frees its place and its bytes. Calling it twice is harmless. */
  release(): void;
}

export interface RequestLimits {
  /**
   * Admits a request, or returns the 429 to answer with over `maxConcurrentRequests`. The body's
   * bytes are taken from `maxConcurrentBodyBytes` as they arrive (`Admission.take`).
   */
  admit(): Admission | TooManyRequestsError;
  /** Requests admitted and not yet released, and the bytes they hold (for tests and metrics). */
  inFlight(): { requests: number; bytes: number };
}

interface Counters {
  requests: number;
  bytes: number;
}

class RequestAdmission implements Admission {
  /** Bytes this request holds in the shared budget: what has arrived so far. */
  private held = 0;
  private released = false;

  constructor(
    private readonly counters: Counters,
    private readonly maxBytes: number,
    readonly maxPayloadBytes: number,
  ) {}

  take(bytes: number): boolean {
    if (this.released || this.counters.bytes + bytes > this.maxBytes) return false;
    this.counters.bytes += bytes;
    this.held += bytes;
    return true;
  }

  exceeded(): Error {
    return new BodyBudgetExceededError(this.maxBytes, RETRY_AFTER_SECONDS);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.counters.requests--;
    this.counters.bytes -= this.held;
    this.held = 0;
  }
}

/**
 * The memory guard of one middleware: how many requests it handles at once and how many body
 * bytes they may buffer together. Bodies take their bytes as they arrive, never as declared:
 * a `Content-Length` costs nothing until its bytes come, so connections that declare large
 * bodies and send nothing (until `bodyTimeout` closes them) cannot lock out real deliveries.
 *
 * @example
 * ```ts
 * const limits = createRequestLimits({ maxConcurrentRequests: 1024, maxConcurrentBodyBytes: 100 << 20, maxPayloadBytes: 25 << 20 });
 * const admission = limits.admit();
 * if (admission instanceof Error) return answer(admission);
 * try { read(request, admission); } finally { admission.release(); }
 * ```
 */
export function createRequestLimits(options: {
  maxConcurrentRequests: number;
  maxConcurrentBodyBytes: number;
  maxPayloadBytes: number;
}): RequestLimits {
  const { maxConcurrentRequests, maxConcurrentBodyBytes, maxPayloadBytes } = options;
  const counters: Counters = { requests: 0, bytes: 0 };
  return {
    admit() {
      if (counters.requests >= maxConcurrentRequests) {
        return new TooManyRequestsError(maxConcurrentRequests, RETRY_AFTER_SECONDS);
      }
      counters.requests++;
      return new RequestAdmission(counters, maxConcurrentBodyBytes, maxPayloadBytes);
    },
    inFlight: () => ({ requests: counters.requests, bytes: counters.bytes }),
  };
}
