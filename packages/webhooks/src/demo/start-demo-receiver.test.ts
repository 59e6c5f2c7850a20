import { expect, it } from 'vitest';
import { sign } from '../methods/sign.js';
import { CHAIN_PATH, startDemoReceiver } from './start-demo-receiver.js';

it('prints a working signed curl request for a fresh secret', async () => {
  const lines: string[] = [];
  const demo = await startDemoReceiver({ port: 0, print: (line) => lines.push(line) });
  try {
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/hosting\/webhooks$/);
    expect(demo.secret.length).toBeGreaterThanOrEqual(32);
    // Replay the printed curl with fetch: same URL, headers and body.
    const headers = Object.fromEntries(
      [...demo.curl.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [
        m[1] as string,
        m[2] as string,
      ]),
    );
    const body = /--data '([^']+)'/.exec(demo.curl)?.[1];
    const ok = await fetch(demo.url, { method: 'POST', headers, body });
    expect(ok.status).toBe(200);
    expect(lines).toContain('ping says: Design for failure.');
    expect(lines).toContain('received ping (delivery demo-1)');

    const tampered = await fetch(demo.url, { method: 'POST', headers, body: `${body} ` });
    expect(tampered.status).toBe(400);
    expect(lines.at(-1)).toMatch(
      /^rejected delivery demo-1: \[@sluice\/webhooks\] signature does not match/,
    );

    const other = await fetch(new URL('/nowhere', demo.url));
    expect(other.status).toBe(404);
    expect((await other.json()).error).toMatch(/POST http:.*\/api\/hosting\/webhooks/);
  } finally {
    await demo.close();
  }
});

it('two demos get different secrets', async () => {
  const a = await startDemoReceiver({ port: 0, print: () => {} });
  const b = await startDemoReceiver({ port: 0, print: () => {} });
  try {
    expect(a.secret).not.toBe(b.secret);
  } finally {
    await a.close();
    await b.close();
  }
});

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

it('GET / says what it is: HTML for browsers, JSON for tools; the printed URL opens in a browser', async () => {
  const demo = await startDemoReceiver({ port: 0, print: () => {} });
  try {
    const root = new URL('/', demo.url);
    const page = await fetch(root, { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await page.text();
    expect(html).toMatch(/<title>@sluice\/webhooks demo receiver<\/title>/);
    expect(html).toContain(`href="${demo.url}"`);
    expect(html).toContain(`href="${new URL('/health', demo.url)}"`);
    // The example on the page is the working signed curl, HTML-escaped.
    expect(html).toContain('x-provider-event: ping');
    expect(html).not.toContain(demo.secret);

    const asJson = await fetch(root);
    expect(asJson.status).toBe(200);
    const body = await asJson.json();
    expect(body).toMatchObject({
      service: '@sluice/webhooks demo receiver',
      deliveries: { method: 'POST', url: demo.url },
      example: demo.curl,
    });
    expect((await fetch(body.health)).status).toBe(200);

    // The URL printed at start, opened in a browser: the landing page, not a JSON 404.
    const printed = await fetch(demo.url, { headers: { accept: BROWSER_ACCEPT } });
    expect(printed.status).toBe(200);
    expect(printed.headers.get('content-type')).toMatch(/^text\/html/);
    // Tools still get the middleware's JSON answer for a GET there.
    const tool = await fetch(demo.url);
    expect(tool.status).toBe(404);
    expect((await tool.json()).error).toMatch(/^Unknown route: GET/);

    const missing = await fetch(new URL('/nope?<b>', demo.url), {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    const missingHtml = await missing.text();
    expect(missingHtml).toContain('<h1>Not found</h1>');
    expect(missingHtml).toContain('href="/"');
    const head = await fetch(root, { method: 'HEAD', headers: { accept: BROWSER_ACCEPT } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  } finally {
    await demo.close();
  }
});

it('verifies chain API deliveries signed with the shared demo secret', async () => {
  const lines: string[] = [];
  const secret = 'demo-secret-shared-with-the-chain-api';
  const demo = await startDemoReceiver({ port: 0, secret, print: (line) => lines.push(line) });
  try {
    const url = new URL(CHAIN_PATH, demo.url);
    const body = JSON.stringify({ activities: [{ type: 'send' }, { type: 'receive' }] });
    const headers = {
      'content-type': 'application/json',
      'dune-webhook-type': 'activities',
      'dune-webhook-chain-id': '31337',
      'dune-webhook-retry-index': '0',
      'dune-webhook-delivery-id': 'd-1',
      'dune-webhook-signature': await sign(secret, body),
    };
    const ok = await fetch(url, { method: 'POST', headers, body });
    expect(ok.status).toBe(200);
    expect(lines.at(-1)).toBe(
      'chain delivery d-1: activities on chain 31337, 2 item(s), retry 0, signature verified',
    );
    const forged = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'dune-webhook-signature': await sign('another-secret', body) },
      body,
    });
    expect(forged.status).toBe(401);
    expect(lines.at(-1)).toBe('rejected chain delivery: signature does not verify');
  } finally {
    await demo.close();
  }
});
