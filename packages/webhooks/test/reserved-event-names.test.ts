// An event name taken from the wire must never address onError() (`error`), onAny()
// (`*`) or `<event>.<action>` handlers; it is refused with 400 before any handler runs.
import { createServer } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { UnsupportedEventNameError } from '../src/errors.js';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import { createWebMiddleware } from '../src/middleware/web/create-web-middleware.js';
import { Webhooks } from '../src/webhooks.js';
import { captureLog } from './helpers/capture-log.js';
import { sendHttp } from './helpers/http-request.js';
import { independentSign } from './helpers/independent-sign.js';
import { listen } from './helpers/listen.js';
import { delivery, PATH, SECRET } from './helpers/middleware-matrix.js';

const BAD_NAMES = [
  'error',
  '*',
  'issues.opened',
  'Push',
  'push ',
  ' push',
  'push\tx',
  'pull-request',
  'ünï',
  '_push',
  '1push',
  'a'.repeat(65),
];

function armed() {
  const webhooks = new Webhooks({ secret: SECRET, log: captureLog() });
  const spies = { on: vi.fn(), any: vi.fn(), error: vi.fn(), action: vi.fn() };
  webhooks.on('issues', spies.on);
  webhooks.on('issues.opened', spies.action);
  webhooks.on('push', spies.on);
  webhooks.onAny(spies.any);
  webhooks.onError(spies.error);
  const untouched = () => {
    for (const spy of Object.values(spies)) expect(spy).not.toHaveBeenCalled();
  };
  return { webhooks, untouched };
}

// A validly signed payload that would run every handler if the name were accepted.
const payload = JSON.stringify({ action: 'opened', issue: { id: 1 } });

describe('reserved and malformed event names from the wire', () => {
  it.each(BAD_NAMES)('verifyAndReceive refuses %j with a 400 and runs nothing', async (name) => {
    const { webhooks, untouched } = armed();
    const error = (await webhooks
      .verifyAndReceive({ id: 'd1', name, payload, signature: independentSign(SECRET, payload) })
      .catch((e: unknown) => e)) as AggregateError;
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.errors[0]).toBeInstanceOf(UnsupportedEventNameError);
    expect((error.errors[0] as UnsupportedEventNameError).status).toBe(400);
    untouched();
  });

  it('receive() refuses "*" and "error" too', async () => {
    const { webhooks, untouched } = armed();
    for (const name of ['*', 'error']) {
      const error = (await webhooks
        .receive({ id: 'd1', name, payload: JSON.parse(payload) })
        .catch((e: unknown) => e)) as AggregateError;
      expect((error.errors[0] as UnsupportedEventNameError).status).toBe(400);
    }
    untouched();
  });

  it('node and Web middleware answer 400 JSON and run no handler', async () => {
    const { webhooks, untouched } = armed();
    const node = createNodeMiddleware(webhooks);
    const server = createServer((req, res) => void node(req, res));
    const { port, close } = await listen(server);
    const web = createWebMiddleware(webhooks);
    try {
      for (const name of BAD_NAMES.filter((n) => !/[\t]|^ | $|ü/.test(n))) {
        const req = delivery(name, payload);
        const res = await sendHttp(port, req);
        expect(res.status, name).toBe(400);
        expect(JSON.parse(res.text).error).toMatch(/^Event name not accepted: /);
        const webRes = await web(
          new Request(`http://receiver.test${PATH}`, {
            method: 'POST',
            headers: req.headers,
            body: new TextEncoder().encode(payload),
          }),
        );
        expect(webRes.status, name).toBe(400);
      }
      untouched();
      // Unknown names of the right form still reach onAny (new provider events keep working).
      const res = await sendHttp(port, delivery('brand_new_event', payload));
      expect(res.status).toBe(200);
    } finally {
      await close();
    }
  });
});
