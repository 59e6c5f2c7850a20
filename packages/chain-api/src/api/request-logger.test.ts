import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { requestLoggerFactory } from './request-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('requestLoggerFactory', () => {
  it('writes enabled levels with the request id bound, and makes no child for disabled ones', () => {
    const { logger, lines } = capture('warn');
    const child = vi.spyOn(logger, 'child');
    const log = requestLoggerFactory(logger, { reqId: 'r-1' }, {});
    log.info({ a: 1 }, 'not written');
    log.debug('nor this');
    expect(child).not.toHaveBeenCalled();
    expect(log.level).toBe('warn');
    log.warn({ b: 2 }, 'written %s', 'once');
    log.error('again');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.reqId, l.msg, l.b])).toEqual([
      ['r-1', 'written once', 2],
      ['r-1', 'again', undefined],
    ]);
  });

  it('follows a level set on the request logger itself', () => {
    const { logger, lines } = capture('warn');
    const log = requestLoggerFactory(logger, { reqId: 'r-3' }, {});
    log.level = 'debug';
    log.debug('now written');
    expect(logger.level).toBe('warn');
    expect(lines.map((l) => [l.reqId, l.msg])).toEqual([['r-3', 'now written']]);
  });

  it('hands a route with its own level or serializers pino’s child at once', () => {
    const { logger, lines } = capture('warn');
    const log = requestLoggerFactory(logger, { reqId: 'r-2' }, { level: 'debug' });
    log.debug('route-level debug');
    expect(lines.map((l) => [l.reqId, l.msg])).toEqual([['r-2', 'route-level debug']]);
  });

  it('is what request.log is in Fastify: a handler’s log line carries its request id', async () => {
    const { logger, lines } = capture('info');
    const app = Fastify({
      loggerInstance: logger,
      childLoggerFactory: requestLoggerFactory,
      disableRequestLogging: true,
      genReqId: () => 'req-7',
    });
    app.get('/', async (request) => {
      request.log.info({ handled: true }, 'in the handler');
      const nested = request.log.child({ step: 'inner' });
      nested.info('nested');
      return { ok: true };
    });
    const res = await app.inject({ method: 'GET', url: '/' });
    await app.close();
    expect(res.json()).toEqual({ ok: true });
    expect(lines.map((l) => [l.reqId, l.msg, l.handled ?? l.step])).toEqual([
      ['req-7', 'in the handler', true],
      ['req-7', 'nested', 'inner'],
    ]);
  });
});
