import { expect, it } from 'vitest';
import { startDemoReceiver } from './start-demo-receiver.js';

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
    expect(lines.at(-1)).toMatch(/^rejected delivery demo-1: signature does not match/);

    const other = await fetch(new URL('/', demo.url));
    expect(other.status).toBe(404);
    expect((await other.json()).error).toMatch(/POST \/api\/hosting\/webhooks/);
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
