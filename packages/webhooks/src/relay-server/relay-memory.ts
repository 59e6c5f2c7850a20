import type { ServerResponse } from 'node:http';

/** What a body read takes from and gives back to the relay's budget. */
export interface BodyBudget {
  /** Takes `bytes` when they fit (cutting streams that are behind to make room), else `false`. */
  take(bytes: number): boolean;
  give(bytes: number): void;
}

/** One SSE stream's share of the budget: the bytes written to it and not yet sent. */
export interface StreamHolding {
  /** Writes `text` when its bytes fit; else cuts the stream and returns `false`. */
  write(text: string): boolean;
  /** The stream closed: gives its bytes back. */
  release(): void;
}

export interface RelayMemory {
  readonly limit: number;
  /** Bytes held now (bodies being read and unsent stream bytes, as counted). */
  readonly used: number;
  readonly bodies: BodyBudget;
  /** Starts counting a stream's unsent bytes; `maxBytes` is its own cap. */
  track(response: ServerResponse, maxBytes: number, onCut: () => void): StreamHolding;
}

interface Holding extends StreamHolding {
  held: number;
  cut(): void;
}

/**
 * The relay's one budget for bytes held in memory for clients: request bodies while they are
 * read and Server-Sent Event bytes queued for streams that have not taken them yet. Bytes are
 * counted as they arrive or are queued and given back as they leave. A stream whose next event
 * does not fit is cut (its client resumes with `Last-Event-ID`); a body that does not fit first
 * cuts the streams furthest behind, so streams that never read cannot starve deliveries, and
 * gets a 503 only when no stream holds anything.
 *
 * @example
 * ```ts
 * const memory = createRelayMemory(128 * 1024 * 1024);
 * const body = await readBoundedBody(request, maxBodyBytes, memory.bodies);
 * const holding = memory.track(response, 8 * 1024 * 1024, () => log.warn('cut'));
 * holding.write(`data: ${message}\n\n`);
 * ```
 */
export function createRelayMemory(limit: number): RelayMemory {
  let used = 0;
  const holdings = new Set<Holding>();
  const take = (bytes: number): boolean => {
    if (used + bytes > limit) return false;
    used += bytes;
    return true;
  };
  const give = (bytes: number): void => {
    used = Math.max(0, used - bytes);
  };

  return {
    limit,
    get used() {
      return used;
    },
    bodies: {
      take(bytes) {
        while (!take(bytes)) {
          let behind: Holding | undefined;
          for (const holding of holdings) if (holding.held > (behind?.held ?? 0)) behind = holding;
          if (behind === undefined) return false;
          behind.cut();
        }
        return true;
      },
      give,
    },
    track(response, maxBytes, onCut) {
      // Node reports what is still queued; bytes it sent since the last look are given back.
      const recount = (): void => {
        const queued = response.writableLength;
        if (queued < holding.held) {
          give(holding.held - queued);
          holding.held = queued;
        }
      };
      const holding: Holding = {
        held: 0,
        write(text) {
          recount();
          const bytes = Buffer.byteLength(text);
          if (holding.held + bytes > maxBytes || !take(bytes)) {
            holding.cut();
            return false;
          }
          holding.held += bytes;
          response.write(text);
          recount();
          return true;
        },
        release() {
          give(holding.held);
          holding.held = 0;
          holdings.delete(holding);
        },
        cut() {
          holding.release();
          onCut();
          response.destroy();
        },
      };
      response.on('drain', recount);
      holdings.add(holding);
      return holding;
    },
  };
}
