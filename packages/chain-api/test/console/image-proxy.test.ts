import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-harness.js';

/**
 * The signed image proxy against two local HTTP servers: `allowed` (exempt from the address
 * check, as the devnet's metadata server is) and `other` (a loopback host like any private one).
 */

const png = (color: string) =>
  Buffer.from(
    new Resvg(
      `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32" fill="${color}"/></svg>`,
    )
      .render()
      .asPng(),
  );
const RED = png('#c00');
const BLUE = png('#00c');
const EVIL_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" onload="alert(1)"><script>alert(document.cookie)</script><rect width="64" height="64" fill="#234" onclick="alert(2)"/></svg>';

let api: TestApi;
let allowed: http.Server;
let other: http.Server;
let allowedBase: string;
let otherBase: string;
let dir: string;

async function listen(handler: http.RequestListener): Promise<[http.Server, string]> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'image-proxy-'));
  writeFileSync(join(dir, 'secret.png'), BLUE);
  [other] = await listen((_req, res) => {
    res.setHeader('content-type', 'image/png');
    res.end(RED);
  });
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  [allowed, allowedBase] = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (
      path === '/red.png' ||
      path === '/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.png'
    ) {
      res.setHeader('content-type', 'image/png');
      res.end(RED);
    } else if (path === '/to-private') {
      res.writeHead(302, { location: `${otherBase}/red.png` });
      res.end();
    } else if (path === '/huge.png') {
      // 50 MB without a Content-Length: the cap must apply while streaming.
      res.setHeader('content-type', 'image/png');
      res.write(RED);
      const chunk = Buffer.alloc(1024 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 50 && res.write(chunk)) sent++;
        if (sent < 50) res.once('drain', pump);
        else res.end();
      };
      pump();
    } else if (path === '/page.html') {
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>hello</body></html>');
    } else if (path === '/lying.png') {
      res.setHeader('content-type', 'image/png');
      res.end('<html><script>alert(1)</script></html>');
    } else if (path === '/evil.svg') {
      res.setHeader('content-type', 'image/svg+xml');
      res.end(EVIL_SVG);
    } else if (path === '/local-file.svg' || path === '/no-file.svg') {
      const href = path === '/local-file.svg' ? join(dir, 'secret.png') : '#none';
      res.setHeader('content-type', 'image/svg+xml');
      res.end(
        `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="32" height="32"><image width="32" height="32" xlink:href="${href}"/></svg>`,
      );
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  api = await startTestApi({
    console: {
      assets: null,
      images: { allowHosts: [new URL(allowedBase).host], ipfsGateway: allowedBase },
    },
  });
});

afterAll(async () => {
  await api?.close();
  allowed?.close();
  other?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sign(urls: string[]): Promise<Record<string, string | null>> {
  const res = await fetch(`${api.url}/v1/console/image-urls`, {
    method: 'POST',
    headers: { 'x-sim-api-key': api.key, 'content-type': 'application/json' },
    body: JSON.stringify({ urls }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { urls: Record<string, string | null> }).urls;
}

async function viaProxy(target: string, headers: Record<string, string> = {}) {
  const path = (await sign([target]))[target];
  expect(path).toMatch(/^\/images\/v1\//);
  return fetch(`${api.url}${path}`, { headers });
}

describe('image proxy', () => {
  it('serves a signed image with ETag and Cache-Control, and 304 on a matching If-None-Match', async () => {
    const res = await viaProxy(`${allowedBase}/red.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(Buffer.from(await res.arrayBuffer()).equals(RED)).toBe(true);
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await viaProxy(`${allowedBase}/red.png`, { 'if-none-match': etag! });
    expect(again.status).toBe(304);
  });

  it('refuses unsigned and tampered URLs, and signs only for key holders', async () => {
    const target = `${allowedBase}/red.png`;
    const unsigned = await fetch(`${api.url}/images/v1/?url=${encodeURIComponent(target)}`);
    expect(unsigned.status).not.toBe(200);
    const made = (await sign([target]))[target]!;
    const forged = made.replace(encodeURIComponent(target), encodeURIComponent(`${target}?x`));
    expect((await fetch(`${api.url}${forged}`)).status).toBe(403);
    const mac = /\/images\/v1\/([^?]+)/.exec(made)![1]!;
    const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    expect((await fetch(`${api.url}${made.replace(mac, flipped)}`)).status).toBe(403);
    const keyless = await fetch(`${api.url}/v1/console/image-urls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ urls: [target] }),
    });
    expect(keyless.status).toBe(401);
  });

  it('refuses private, loopback and cloud metadata targets', async () => {
    for (const target of [
      `${otherBase}/red.png`,
      `http://localhost:${new URL(otherBase).port}/red.png`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/a.png',
      'http://[::1]/a.png',
      'http://[::ffff:127.0.0.1]/a.png',
    ]) {
      const res = await viaProxy(target);
      expect(res.status, target).toBe(403);
      expect(((await res.json()) as { error: string }).error).toMatch(/^refused/);
    }
  });

  it('re-checks redirects: an allowed host redirecting to a private one is refused', async () => {
    const res = await viaProxy(`${allowedBase}/to-private`);
    expect(res.status).toBe(403);
  });

  it('refuses a 50 MB image and what is not an image (by its bytes, whatever the header says)', async () => {
    const huge = await viaProxy(`${allowedBase}/huge.png`);
    expect(huge.status).toBe(502);
    expect(((await huge.json()) as { error: string }).error).toMatch(/larger/);
    for (const path of ['/page.html', '/lying.png']) {
      const res = await viaProxy(`${allowedBase}${path}`);
      expect(res.status, path).toBe(502);
      expect(((await res.json()) as { error: string }).error).toMatch(/not an image/);
    }
  });

  it('rasterises SVG: a script-bearing SVG comes out as PNG pixels, no script or handler', async () => {
    const res = await viaProxy(`${allowedBase}/evil.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 4).toString('hex')).toBe('89504e47');
    const text = body.toString('latin1');
    for (const word of ['<script', 'alert', 'onload', 'onclick']) expect(text).not.toContain(word);
  });

  it('an SVG cannot pull a file of the server into its picture', async () => {
    const withFile = Buffer.from(
      await (await viaProxy(`${allowedBase}/local-file.svg`)).arrayBuffer(),
    );
    const without = Buffer.from(await (await viaProxy(`${allowedBase}/no-file.svg`)).arrayBuffer());
    expect(withFile.equals(without)).toBe(true);
  });

  it('loads ipfs:// through the configured gateway; other schemes are not signed', async () => {
    const cid = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';
    const res = await viaProxy(`ipfs://${cid}/1.png`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(RED)).toBe(true);
    const signed = await sign([
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:image/png;base64,AA==',
    ]);
    expect(signed['javascript:alert(1)']).toBeNull();
    expect(signed['file:///etc/passwd']).toBeNull();
    expect(signed['data:image/png;base64,AA==']).toBe('data:image/png;base64,AA==');
  });
});
