import type { onRequestHookHandler } from 'fastify';
import { requestScope } from './request-deadline.js';

/**
 * A keyed route's hook (after authentication) that admits at most KEY_REQUEST_CONCURRENCY
 * requests of one API key at once. The key's further requests wait, in arrival order, for one of
 * its own to end; never behind another key's. The event loop is the one resource the per-key
 * database and node slots do not share out: a key flooding heavy requests otherwise has dozens
 * of answers being shaped and serialized between its statements, and every other key's callbacks
 * queue behind them. Waiting counts toward the request's deadline (a 503 past it, like any slow
 * request), and the slot is freed when the response ends or the connection closes.
 *
 * @example
 * keyed.addHook('onRequest', requireApiKey(verifier));
 * keyed.addHook('onRequest', holdRequestSlot());
 */
export function holdRequestSlot(): onRequestHookHandler {
  // Callback style: most requests find a free slot and go on without a promise.
  return (request, reply, done) => {
    const scope = requestScope(request);
    if (!scope) return done();
    const key = scope.key();
    const held = (release: () => void) => {
      // 'close' fires once the response is sent or the connection is gone, whichever is first.
      if (reply.raw.destroyed || reply.raw.writableFinished) release();
      else reply.raw.once('close', release);
      done();
    };
    const free = scope.requestSlots.tryHold(key);
    if (free) return held(free);
    scope.requestSlots.hold(key, scope.signal).then(held, done);
  };
}
