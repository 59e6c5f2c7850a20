// A user migrating from @octokit/webhooks 14.2.0: the same requests and calls go to both
// libraries side by side, and what a user can observe (statuses, onError, what log.error gets,
// what stays registered) must be the same; test/octokit-parity.test.ts compares messages,
// bodies and headers. Where behaviour differs on purpose, the README's differences table lists
// it and the test says so.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import * as octokit from '@octokit/webhooks';
import { afterEach, describe, expect, it, type Mock, vi } from 'vitest';
import { sign as sluiceSign, verify as sluiceVerify } from '../src/methods/index.js';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import { createWebMiddleware } from '../src/middleware/web/create-web-middleware.js';
import { Webhooks } from '../src/webhooks.js';
import { sendHttp } from './helpers/http-request.js';
import { independentSign } from './helpers/independent-sign.js';
import { listen } from './helpers/listen.js';

const SECRET = 'compat-secret';
const PATH = '/hooks';

type Lib = 'sluice' | 'octokit';
const LIBS: Lib[] = ['sluice', 'octokit'];

/** Header names differ only by the provider rename. */
function headersFor(lib: Lib, name: string, id: string, signature: string | undefined) {
  const prefix = lib === 'octokit' ? 'x-github' : 'x-provider';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [`${prefix}-event`]: name,
    [`${prefix}-delivery`]: id,
  };
  if (signature !== undefined) headers['x-hub-signature-256'] = signature;
  return headers;
}

type LogFn = (...data: unknown[]) => void;
interface Spy {
  debug: Mock<LogFn>;
  info: Mock<LogFn>;
  warn: Mock<LogFn>;
  error: Mock<LogFn>;
}
const spyLog = (): Spy => ({
  debug: vi.fn<LogFn>(),
  info: vi.fn<LogFn>(),
  warn: vi.fn<LogFn>(),
  error: vi.fn<LogFn>(),
});

interface AnyWebhooks {
  on(name: unknown, fn: (event: never) => unknown): void;
  onAny(fn: (event: never) => unknown): void;
  onError(fn: (error: never) => unknown): void;
  receive(event: unknown): Promise<void>;
  verifyAndReceive(event: unknown): Promise<void>;
}

function makeWebhooks(lib: Lib, log?: Partial<Spy>): AnyWebhooks {
  const options = { secret: SECRET, ...(log ? { log } : {}) };
  return (lib === 'octokit'
    ? new octokit.Webhooks(options as never)
    : new Webhooks(options as never)) as unknown as AnyWebhooks;
}

function nodeMiddleware(lib: Lib, webhooks: AnyWebhooks, options: Record<string, unknown>) {
  return lib === 'octokit'
    ? octokit.createNodeMiddleware(webhooks as never, options as never)
    : createNodeMiddleware(webhooks as never, options as never);
}

function webMiddleware(lib: Lib, webhooks: AnyWebhooks, options: Record<string, unknown>) {
  return (
    lib === 'octokit'
      ? octokit.createWebMiddleware(webhooks as never, options as never)
      : createWebMiddleware(webhooks as never, options as never)
  ) as (request: Request, response?: unknown, next?: () => unknown) => Promise<Response>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serveNode(lib: Lib, webhooks: AnyWebhooks, options: Record<string, unknown>) {
  const middleware = nodeMiddleware(lib, webhooks, options);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void Promise.resolve(middleware(req, res)).then((handled) => {
      if (!handled) res.writeHead(404).end('other');
    });
  });
  const { port, close } = await listen(server);
  closers.push(close);
  return port;
}

/** Sends one delivery of `payload` (signed unless `signature` is given) over node:http. */
async function postNode(
  lib: Lib,
  port: number,
  payload: string,
  options: { name?: string; signature?: string; path?: string } = {},
) {
  const name = options.name ?? 'push';
  const signature = options.signature ?? independentSign(SECRET, payload);
  return sendHttp(port, {
    path: options.path ?? PATH,
    headers: headersFor(lib, name, 'compat-1', signature),
    body: payload,
  });
}

function webRequest(
  lib: Lib,
  payload: string,
  options: { signature?: string; path?: string } = {},
) {
  const signature = options.signature ?? independentSign(SECRET, payload);
  return new Request(`http://receiver.test${options.path ?? PATH}`, {
    method: 'POST',
    headers: headersFor(lib, 'push', 'compat-1', signature),
    body: new TextEncoder().encode(payload),
  });
}

const push = JSON.stringify({ ref: 'refs/heads/main', commits: [] });

describe.each(LIBS)('%s', (lib) => {
  it('1, 9: log.error gets the AggregateError itself for handler failures, bad signatures, invalid JSON and statuses (Node)', async () => {
    const log = spyLog();
    const webhooks = makeWebhooks(lib);
    webhooks.on('push', ({ payload }: { payload: { ref?: string } }) => {
      if (payload.ref === 'forbidden') throw Object.assign(new Error('no access'), { status: 403 });
      throw new Error('handler broke');
    });
    const port = await serveNode(lib, webhooks, { path: PATH, log });

    const cases: [string, string | undefined, number, string][] = [
      [push, undefined, 500, 'handler broke'],
      [JSON.stringify({ ref: 'forbidden' }), undefined, 403, 'no access'],
      [push, 'sha256=0000', 400, 'signature does not match'],
      ['{"not json', undefined, 400, 'JSON'],
    ];
    for (const [payload, signature, status, message] of cases) {
      log.error.mockClear();
      const res = await postNode(lib, port, payload, signature ? { signature } : {});
      expect(res.status).toBe(status);
      expect(log.error).toHaveBeenCalledTimes(1);
      const [logged, ...rest] = log.error.mock.calls[0] as unknown[];
      expect(rest).toEqual([]);
      expect(logged).toBeInstanceOf(AggregateError);
      expect(String((logged as AggregateError).errors[0]?.message)).toContain(message);
    }
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('9: the same through the Web middleware', async () => {
    const log = spyLog();
    const webhooks = makeWebhooks(lib);
    webhooks.on('push', () => {
      throw Object.assign(new Error('no access'), { status: 403 });
    });
    const middleware = webMiddleware(lib, webhooks, { path: PATH, log });
    for (const [payload, signature, status] of [
      [push, undefined, 403],
      [push, 'sha256=00', 400],
      ['[1,', undefined, 400],
    ] as const) {
      log.error.mockClear();
      const res = await middleware(webRequest(lib, payload, signature ? { signature } : {}));
      expect(res.status).toBe(status);
      expect(log.error).toHaveBeenCalledTimes(1);
      expect(log.error.mock.calls[0]?.[0]).toBeInstanceOf(AggregateError);
    }
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('2: a present but empty signature is a signature mismatch: 400 and onError (Node and Web)', async () => {
    const webhooks = makeWebhooks(lib);
    const onError = vi.fn();
    webhooks.onError(onError);
    const handler = vi.fn();
    webhooks.on('push', handler);
    const port = await serveNode(lib, webhooks, { path: PATH, log: spyLog() });
    const res = await postNode(lib, port, push, { signature: '' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatch(/signature does not match/);
    expect(onError).toHaveBeenCalledTimes(1);

    const web = webMiddleware(lib, webhooks, { path: PATH, log: spyLog() });
    const webRes = await web(webRequest(lib, push, { signature: '' }));
    expect(webRes.status).toBe(400);
    expect(onError).toHaveBeenCalledTimes(2);
    expect(handler).not.toHaveBeenCalled();
  });

  it('3, 6: with path "/" (or ""), request paths "//" and "///" are the root', async () => {
    for (const path of ['/', '']) {
      const webhooks = makeWebhooks(lib);
      const handler = vi.fn();
      webhooks.on('push', handler);
      const port = await serveNode(lib, webhooks, { path, log: spyLog() });
      for (const requestPath of ['/', '//', '///']) {
        const res = await postNode(lib, port, push, { path: requestPath });
        expect(res.status, `${JSON.stringify(path)} ${requestPath}`).toBe(200);
      }
      expect(handler).toHaveBeenCalledTimes(3);
      const other = await postNode(lib, port, push, { path: '/elsewhere' });
      expect(other.status).toBe(404);
    }
  });

  it('4: receive(new Error()) rejects with an AggregateError holding it and runs onError', async () => {
    const webhooks = makeWebhooks(lib);
    const onError = vi.fn();
    webhooks.onError(onError);
    const oops = new Error('oops');
    const error = (await webhooks.receive(oops).catch((e: unknown) => e)) as AggregateError;
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.errors[0]).toBe(oops);
    expect(error.message).toBe('oops');
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]?.[0]).toBe(error);
  });

  it('5: log methods are read when called, not when the instance is created', async () => {
    const log: Partial<Spy> = { warn: vi.fn() };
    const webhooks = makeWebhooks(lib, log);
    const later = vi.fn<LogFn>();
    log.warn = later;
    webhooks.on('not_a_known_event' as never, () => {});
    expect(later).toHaveBeenCalledTimes(1);

    const middlewareLog: Partial<Spy> = {};
    webhooks.on('push', () => {
      throw new Error('x');
    });
    const port = await serveNode(lib, webhooks, { path: PATH, log: middlewareLog });
    const error = vi.fn<LogFn>();
    const debug = vi.fn<LogFn>();
    middlewareLog.error = error;
    middlewareLog.debug = debug;
    const res = await postNode(lib, port, push);
    expect(res.status).toBe(500);
    expect(error).toHaveBeenCalledTimes(1);
    expect(debug).toHaveBeenCalledWith('push event received (id: compat-1)');
  });

  it('8: sign.VERSION and verify.VERSION are version strings', async () => {
    const methods =
      lib === 'octokit'
        ? await import('@octokit/webhooks-methods')
        : { sign: sluiceSign, verify: sluiceVerify };
    expect(methods.sign.VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(methods.verify.VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('10: on(["push", "*"], fn) throws but keeps "push" registered', async () => {
    const webhooks = makeWebhooks(lib, spyLog());
    const fn = vi.fn();
    expect(() => webhooks.on(['push', '*'], fn)).toThrow(TypeError);
    await webhooks.receive({ id: '1', name: 'push', payload: {} });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('11: the Web middleware calls a `next` passed third for other paths', async () => {
    const webhooks = makeWebhooks(lib);
    const middleware = webMiddleware(lib, webhooks, { path: PATH, log: spyLog() });
    const next = vi.fn();
    await middleware(webRequest(lib, push, { path: '/other' }), undefined, next);
    expect(next).toHaveBeenCalledTimes(1);
    await middleware(webRequest(lib, push), undefined, next);
    expect(next).toHaveBeenCalledTimes(1);
  });
});

describe('sluice only', () => {
  it('8: VERSION is this package.json version', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(sluiceSign.VERSION).toBe(pkg.version);
    expect(sluiceVerify.VERSION).toBe(pkg.version);
  });

  it('1: a logger that throws never leaves a request unanswered (Node and Web)', async () => {
    const throwing = {
      debug: () => {
        throw new Error('debug broke');
      },
      error: (e: unknown) => {
        if (!(e instanceof AggregateError)) throw new TypeError('expected an AggregateError');
        throw new Error('the logger itself broke');
      },
      warn: () => {
        throw new Error('warn broke');
      },
    };
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const webhooks = new Webhooks({ secret: SECRET, log: throwing });
      webhooks.on('push', () => {
        throw new Error('handler broke');
      });
      const onError = vi.fn(() => {
        throw new Error('onError broke too');
      });
      webhooks.onError(onError);
      // A long 202 timeout: an answer can only come from the failure path.
      const port = await serveNode('sluice', webhooks as never, { path: PATH, timeout: 60_000 });
      expect((await postNode('sluice', port, push)).status).toBe(500);
      expect((await postNode('sluice', port, push, { signature: 'sha256=1' })).status).toBe(400);
      expect((await postNode('sluice', port, '', {})).status).toBe(400);
      const web = createWebMiddleware(webhooks, { path: PATH, timeout: 60_000 });
      expect((await web(webRequest('sluice', push))).status).toBe(500);
      // The empty body is a signature mismatch too, as for the peer.
      expect(onError).toHaveBeenCalledTimes(4);
      // The logger's own failures are reported, not swallowed.
      expect(consoleError).toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
    }
  });

  it('7 (deliberate difference): a request stream error answers 400 RequestBodyError, not 500', async () => {
    const webhooks = new Webhooks({ secret: SECRET, log: spyLog() });
    const middleware = createNodeMiddleware(webhooks, { path: PATH });
    const request = Object.assign(new PassThrough(), {
      url: PATH,
      method: 'POST',
      headers: headersFor('sluice', 'push', 'stream-1', independentSign(SECRET, push)),
    });
    let status = 0;
    let body = '';
    const response = {
      headersSent: false,
      writableEnded: false,
      writeHead(code: number) {
        status = code;
        return this;
      },
      end(text: string) {
        body = text;
      },
    };
    const handled = middleware(request as never, response as never);
    request.write('{"ref":');
    request.destroy(new Error('socket hang up'));
    expect(await handled).toBe(true);
    expect(status).toBe(400);
    expect(JSON.parse(body).error).toMatch(/^RequestBodyError: .*socket hang up/);
  });
});
