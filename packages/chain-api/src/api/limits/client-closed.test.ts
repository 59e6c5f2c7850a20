import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRequestLimits } from '../../config/request-limits-config.js';
import { registerErrorHandlers } from '../error-handlers.js';
import { registerRequestDeadline, requestScope } from './request-deadline.js';
import { raceScope } from './request-scope.js';

let close: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('a client that goes away', () => {
  it('cancels its request, which is logged as such (info), not as a server error', async () => {
    const lines: { level: number; msg?: string }[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const app = Fastify({ loggerInstance: logger as FastifyBaseLogger });
    close = () => app.close();
    registerRequestDeadline(app, { ...defaultRequestLimits, timeoutMs: 10_000 });
    registerErrorHandlers(app);
    let cancelled: (reason: unknown) => void = () => {};
    const wasCancelled = new Promise((resolve) => {
      cancelled = resolve;
    });
    app.get('/hang', async (request) => {
      const scope = requestScope(request);
      if (!scope) throw new Error('no scope');
      // Work that only ends when the request is cancelled (a statement, a node call).
      await raceScope(new Promise(() => {}), scope.signal).catch((error: unknown) => {
        cancelled(error);
        throw error;
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const req = httpRequest({ host: '127.0.0.1', port, path: '/hang' });
    req.on('error', () => {});
    req.end();
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.destroy();

    await expect(wasCancelled).resolves.toMatchObject({ code: 'CLIENT_CLOSED' });
    const until = Date.now() + 2_000;
    const logged = () => lines.some((l) => /client closed/.test(l.msg ?? ''));
    while (!logged() && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.some((l) => l.level === 30 && /client closed/.test(l.msg ?? ''))).toBe(true);
  });
});
