// What a user migrating from @octokit/webhooks can observe, run against both libraries and
// compared for equality: error classes and messages, middleware statuses, bodies and headers,
// path matching, unmatched requests with and without `next`, and which handlers ran. The only
// rewrites are the provider rename (`x-github-*` headers) and the package prefix of messages.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as octokit from '@octokit/webhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { validateEventName } from '../src/event-handler/validate-event-name.js';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import { createWebMiddleware } from '../src/middleware/web/create-web-middleware.js';
import { Webhooks } from '../src/webhooks.js';
import { sendHttp } from './helpers/http-request.js';
import { independentSign } from './helpers/independent-sign.js';
import { listen } from './helpers/listen.js';

const SECRET = 'parity-secret';
const PATH = '/hooks';
type Lib = 'octokit' | 'sluice';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Messages and bodies with the package prefix and provider header names made neutral. */
const neutral = (text: string): string =>
  text
    .replaceAll('[@octokit/webhooks]', '[@pkg]')
    .replaceAll('[@sluice/webhooks]', '[@pkg]')
    .replaceAll('x-github-', 'x-provider-');

/** What a `catch` can see of a thrown value. */
function describeThrown(run: () => unknown) {
  try {
    run();
    return 'no throw';
  } catch (error) {
    const e = error as Error;
    return {
      isError: e instanceof Error,
      isTypeError: e instanceof TypeError,
      isSyntaxError: e instanceof SyntaxError,
      name: e.name,
      message: neutral(e.message),
    };
  }
}

async function describeRejection(promise: Promise<unknown>) {
  const error = (await promise.then(
    () => 'resolved',
    (e: unknown) => e,
  )) as AggregateError;
  const first = error.errors[0] as Error & { status?: number };
  return {
    isAggregate: error instanceof AggregateError,
    message: neutral(error.message),
    errors: error.errors.length,
    first: {
      isSyntaxError: first instanceof SyntaxError,
      name: first.name,
      message: neutral(first.message),
      status: first.status,
    },
  };
}

function makeWebhooks(lib: Lib) {
  const webhooks = (lib === 'octokit'
    ? new octokit.Webhooks({ secret: SECRET, log: { ...quiet } })
    : new Webhooks({ secret: SECRET, log: { ...quiet } })) as unknown as Webhooks;
  const calls: string[] = [];
  const errors: string[] = [];
  webhooks.on('push', ({ payload }) => {
    calls.push(`push:${String((payload as { ref?: string }).ref)}`);
    if ((payload as { ref?: string }).ref === 'boom') throw new Error('boom');
    if ((payload as { ref?: string }).ref === 'silent') throw new Error('');
  });
  webhooks.onAny(({ name }) => void calls.push(`any:${name}`));
  webhooks.onError((error) => void errors.push(neutral(error.message)));
  return { webhooks, calls, errors };
}

describe('errors a migrating user catches', () => {
  it('validateEventName: TypeError with the same message for every invalid name', () => {
    const names: unknown[] = [null, undefined, {}, [], true, false, 1, 'invalid', '*', 'error'];
    for (const name of names) {
      const ours = describeThrown(() => validateEventName(name as string));
      const theirs = describeThrown(() => octokit.validateEventName(name as string));
      expect(ours, String(name)).toEqual(theirs);
      expect(ours).toMatchObject({ isTypeError: true });
    }
  });

  it('new Webhooks() without a secret: the same class and message', () => {
    for (const options of [undefined, {}, { secret: '' }]) {
      const ours = describeThrown(() => new Webhooks(options as never));
      const theirs = describeThrown(() => new octokit.Webhooks(options as never));
      expect(ours, JSON.stringify(options)).toEqual(theirs);
    }
  });

  it('verifyAndReceive with a wrong signature or invalid JSON: the same rejection', async () => {
    const cases = [
      { payload: '{"ref":"x"}', signature: independentSign('wrong', '{"ref":"x"}') },
      { payload: '{"ref":', signature: independentSign(SECRET, '{"ref":') },
      { payload: '', signature: independentSign(SECRET, '') },
    ];
    for (const delivery of cases) {
      const seen = [];
      for (const lib of ['octokit', 'sluice'] as const) {
        const { webhooks, calls, errors } = makeWebhooks(lib);
        const rejection = await describeRejection(
          webhooks.verifyAndReceive({ id: '1', name: 'push', ...delivery }),
        );
        seen.push({ rejection, calls, errors });
      }
      expect(seen[1], delivery.payload).toEqual(seen[0]);
    }
  });
});

/** One request, as each library's headers name it. */
interface Case {
  label: string;
  path?: string;
  method?: string;
  body?: string;
  headers?: Record<string, string | undefined>;
  /** Sign with this instead of the body. */
  signature?: string;
  /** The Node server replaces the request URL with this before the middleware sees it. */
  rawUrl?: string;
}

const push = (ref: string) => JSON.stringify({ ref, commits: [] });
const CASES: Case[] = [
  { label: 'valid delivery', body: push('main') },
  { label: 'trailing slash', path: `${PATH}/`, body: push('main') },
  { label: 'query', path: `${PATH}?a=1`, body: push('main') },
  { label: 'trailing slash and query', path: `${PATH}/?a=1`, body: push('main') },
  { label: 'other path', path: '/other', body: push('main') },
  { label: 'GET on the path', method: 'GET' },
  { label: 'invalid JSON', body: '{"ref":' },
  { label: 'empty body', body: '' },
  { label: 'bad signature', body: push('main'), signature: 'sha256=0000' },
  { label: 'handler error', body: push('boom') },
  { label: 'handler error without a message', body: push('silent') },
  { label: 'text/plain', body: push('main'), headers: { 'content-type': 'text/plain' } },
  { label: 'no content type', body: push('main'), headers: { 'content-type': undefined } },
  {
    label: 'no webhook headers',
    body: push('main'),
    headers: { event: undefined, delivery: undefined, signature: undefined },
  },
  { label: 'no delivery header', body: push('main'), headers: { delivery: undefined } },
];

function headersFor(lib: Lib, c: Case): Record<string, string> {
  const prefix = lib === 'octokit' ? 'x-github' : 'x-provider';
  const given = c.headers ?? {};
  const all: Record<string, string | undefined> = {
    'content-type': 'content-type' in given ? given['content-type'] : 'application/json',
    [`${prefix}-event`]: 'event' in given ? given.event : 'push',
    [`${prefix}-delivery`]: 'delivery' in given ? given.delivery : 'd-1',
    'x-hub-signature-256':
      'signature' in given
        ? given.signature
        : (c.signature ?? independentSign(SECRET, c.body ?? '')),
  };
  return Object.fromEntries(
    Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** What a client and the application can observe of one answered request. */
function observed(
  status: number,
  headers: Headers,
  text: string,
  calls: string[],
  errors: string[],
) {
  return {
    status,
    body: neutral(text),
    contentType: headers.get('content-type'),
    accept: headers.get('accept'),
    // The lengths differ by the rename itself; both must count the body sent.
    contentLength: headers.get('content-length') === String(Buffer.byteLength(text)),
    calls: [...calls],
    errors: [...errors],
  };
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** A node:http server; unmatched requests answer 404 `fallthrough next=<calls>`. */
async function nodeServer(lib: Lib, withNext: boolean) {
  const state = makeWebhooks(lib);
  const middleware = (
    lib === 'octokit'
      ? octokit.createNodeMiddleware(state.webhooks as never, { path: PATH, log: { ...quiet } })
      : createNodeMiddleware(state.webhooks, { path: PATH, log: { ...quiet } })
  ) as (req: IncomingMessage, res: ServerResponse, next?: () => void) => Promise<boolean>;
  const server = createServer((req, res) => {
    const raw = req.headers['x-test-raw-url'];
    if (typeof raw === 'string') req.url = raw;
    let nextCalls = 0;
    const next = () => void nextCalls++;
    void middleware(req, res, withNext ? next : undefined).then((handled) => {
      if (!handled) res.writeHead(404).end(`fallthrough ${handled} next=${nextCalls}`);
    });
  });
  const { port, close } = await listen(server);
  closers.push(close);
  return { port, ...state };
}

describe.each([false, true])('Node middleware (next given: %s)', (withNext) => {
  const servers = {} as Record<Lib, Awaited<ReturnType<typeof nodeServer>>>;

  it.each([...CASES, { label: 'unparsable URL', rawUrl: '//[', body: push('main') }])(
    '$label: the same answer and handler calls',
    async (c: Case) => {
      const seen = [];
      for (const lib of ['octokit', 'sluice'] as const) {
        servers[lib] ??= await nodeServer(lib, withNext);
        const server = servers[lib];
        server.calls.length = 0;
        server.errors.length = 0;
        const headers = headersFor(lib, c);
        if (c.rawUrl !== undefined) headers['x-test-raw-url'] = c.rawUrl;
        const res = await sendHttp(server.port, {
          method: c.method ?? 'POST',
          path: c.path ?? PATH,
          headers,
          ...(c.body === undefined ? {} : { body: c.body }),
        });
        // onError handlers are not awaited: let them run.
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push(observed(res.status, res.headers, res.text, server.calls, server.errors));
      }
      expect(seen[1]).toEqual(seen[0]);
    },
  );
});

describe.each(['none', 'third'] as const)('Web middleware (next: %s)', (nextForm) => {
  const states = {} as Record<Lib, ReturnType<typeof makeWebhooks>>;
  const middlewares = {} as Record<
    Lib,
    (request: Request, response?: unknown, next?: () => unknown) => Promise<Response>
  >;

  it.each(CASES)('$label: the same Response and handler calls', async (c: Case) => {
    const seen = [];
    for (const lib of ['octokit', 'sluice'] as const) {
      states[lib] ??= makeWebhooks(lib);
      const state = states[lib];
      middlewares[lib] ??= (
        lib === 'octokit'
          ? octokit.createWebMiddleware(state.webhooks as never, { path: PATH, log: { ...quiet } })
          : createWebMiddleware(state.webhooks, { path: PATH, log: { ...quiet } })
      ) as (typeof middlewares)[Lib];
      state.calls.length = 0;
      state.errors.length = 0;
      let nextCalls = 0;
      // `next` answers with its own Response, which both ignore.
      const next = () => {
        nextCalls++;
        return new Response('from next', { status: 418 });
      };
      const method = c.method ?? 'POST';
      const request = new Request(`http://receiver.test${c.path ?? PATH}`, {
        method,
        headers: headersFor(lib, c),
        ...(method === 'GET' || c.body === undefined ? {} : { body: c.body }),
      });
      const middleware = middlewares[lib];
      const response =
        nextForm === 'third'
          ? await middleware(request, undefined, next)
          : await middleware(request);
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push({
        ...observed(
          response.status,
          response.headers,
          await response.text(),
          state.calls,
          state.errors,
        ),
        nextCalls,
      });
    }
    expect(seen[1]).toEqual(seen[0]);
  });
});
