import type { FastifyInstance } from 'fastify';
import { UsersError } from '../errors.js';

/**
 * Answers 408 and closes the connection when a request body is not fully received within
 * `timeoutMs` of its headers (a client that sent less than its Content-Length, or trickles it),
 * so a stalled upload cannot hold a connection and its buffers open.
 *
 * @example
 * bodyDeadline(app, 5_000);
 */
export function bodyDeadline(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('preParsing', async (request, reply, payload) => {
    const raw = request.raw;
    if (raw.complete) return payload;
    const timer = setTimeout(() => {
      if (raw.complete || reply.sent) return;
      const error = new UsersError(
        'USERS_REQUEST_TIMEOUT',
        `Request body not received within ${timeoutMs / 1000} s`,
      );
      request.log.info({ code: error.code }, 'client error');
      // Fastify is still waiting for the body: answer on the raw response and stop it from
      // answering again when the body stream then fails.
      reply.hijack();
      const res = reply.raw;
      res.writeHead(408, {
        'content-type': 'application/json; charset=utf-8',
        connection: 'close',
      });
      res.end(JSON.stringify(error.toBody()), () => raw.socket?.destroy());
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    return payload;
  });
}
