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
   * Admits a request whose body declares `declaredBytes` (`undefined` when not declared), or
   * returns the error to answer with: 429 over `maxConcurrentRequests`, 503 when the declared
   * size does not fit in what is left of `maxConcurrentBodyBytes`.
   */
  admit(
    declaredBytes: number | undefined,
  ): Admission | TooManyRequestsError | BodyBudgetExceededError;
  /** Requests admitted and not yet released, and the bytes they hold (for tests and metrics). */
  inFlight(): { requests: number; bytes: number };
}

interface Counters {
  requests: number;
  bytes: number;
}

class RequestAdmission implements Admission {
  /** Bytes reserved in the shared budget; grows when an undeclared body outgrows it. */
  private held: number;
  private received = 0;
  private released = false;

  constructor(
    private readonly counters: Counters,
    private readonly maxBytes: number,
    readonly maxPayloadBytes: number,
    reserved: number,
  ) {
    this.held = reserved;
  }

  take(bytes: number): boolean {
    this.received += bytes;
    const extra = this.received - this.held;
    if (extra <= 0) return true;
    if (this.released || this.counters.bytes + extra > this.maxBytes) return false;
    this.counters.bytes += extra;
    this.held += extra;
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
 * bytes they may buffer together. Bodies with a `Content-Length` reserve it up front (so a
 * burst of large uploads is refused before any byte is read); chunked bodies take their bytes
 * as they arrive.
 *
 * @example
 * ```ts
 * const limits = createRequestLimits({ maxConcurrentRequests: 1024, maxConcurrentBodyBytes: 100 << 20, maxPayloadBytes: 25 << 20 });
 * const admission = limits.admit(contentLength);
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
    admit(declaredBytes) {
      if (counters.requests >= maxConcurrentRequests) {
        return new TooManyRequestsError(maxConcurrentRequests, RETRY_AFTER_SECONDS);
      }
      // A body declared over the size limit gets 413 without being read: nothing to reserve.
      const reserved =
        declaredBytes !== undefined && declaredBytes <= maxPayloadBytes ? declaredBytes : 0;
      if (counters.bytes + reserved > maxConcurrentBodyBytes) {
        return new BodyBudgetExceededError(maxConcurrentBodyBytes, RETRY_AFTER_SECONDS);
      }
      counters.requests++;
      counters.bytes += reserved;
      return new RequestAdmission(counters, maxConcurrentBodyBytes, maxPayloadBytes, reserved);
    },
    inFlight: () => ({ requests: counters.requests, bytes: counters.bytes }),
  };
}
