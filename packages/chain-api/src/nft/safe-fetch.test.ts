import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeFetchError } from './errors.js';
import { createSafeFetcher, type Resolver } from './safe-fetch.js';

let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/ok.json':
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end('{"name":"ok"}');
        return;
      case '/gzip.json':
        res.setHeader('content-type', 'application/json');
        res.setHeader('content-encoding', 'gzip');
        res.end(zlib.gzipSync('{"name":"zipped"}'));
        return;
      case '/bomb.json': {
        // 50 MB of zeros compressed to ~50 KB: the cap applies to decompressed bytes.
        res.setHeader('content-type', 'application/json');
        res.setHeader('content-encoding', 'gzip');
        res.end(zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024)));
        return;
      }
      case '/big-declared':
        res.setHeader('content-length', String(10 * 1024 * 1024));
        res.write('{');
        return; // never finishes: the declared length alone must refuse it
      case '/big-chunked': {
        res.setHeader('content-type', 'application/json');
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 100 && res.write(chunk)) sent++;
          if (sent < 100) res.once('drain', pump);
          else res.end();
        };
        pump();
        return;
      }
      case '/slow':
        res.setHeader('content-type', 'application/json');
        res.write('{"name":');
        setTimeout(() => res.end('"late"}'), 3_000).unref();
        return;
      case '/hang':
        return; // never answers
      case '/image':
        res.setHeader('content-type', 'image/png');
        res.end(Buffer.alloc(10));
        return;
      case '/404':
        res.statusCode = 404;
        res.end('nope');
        return;
      case '/redirect': {
        const to = url.searchParams.get('to') ?? '/ok.json';
        res.statusCode = 302;
        res.setHeader('location', to);
        res.end();
        return;
      }
      case '/loop': {
        const n = Number(url.searchParams.get('n') ?? '0');
        res.statusCode = 301;
        res.setHeader('location', `/loop?n=${n + 1}`);
        res.end();
        return;
      }
      default:
        res.statusCode = 500;
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(promise: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SafeFetchError) return error;
    throw error;
  }
  throw new Error('expected a SafeFetchError');
}

/** A resolver that pretends `public.test` is a public host but answers with our loopback server. */
const mapped: Resolver = async (hostname) => {
  if (hostname === 'evil.test') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'mixed.test') {
    return [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
  }
  if (hostname === 'v6.test') return [{ address: '::ffff:127.0.0.1', family: 6 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describe('createSafeFetcher: SSRF guard', () => {
  const guarded = createSafeFetcher({ resolve: mapped, timeoutMs: 2_000 });
  afterAll(() => guarded.close());

  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'], // decimal spelling of 127.0.0.1
    ['http://0x7f.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'ipv4-mapped'],
    ['http://[::ffff:a00:1]/', 'ipv4-mapped'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://100.64.0.1/', 'cgnat'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[fd12:3456::1]/', 'unique-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://[64:ff9b::7f00:1]/', 'ipv4-embedded'],
  ])('refuses %s (%s)', async (url, cls) => {
    const error = await failure(guarded.fetch(url));
    expect(error.code).toBe('BLOCKED_ADDRESS');
    expect(error.message).toContain(cls);
  });

  it('refuses a host name that resolves to loopback (checked at connect time)', async () => {
    const error = await failure(guarded.fetch(`http://evil.test:${port}/ok.json`));
    expect(error.code).toBe('BLOCKED_ADDRESS');
    expect(error.message).toContain('evil.test -> 127.0.0.1');
  });

  it('refuses a host name with one private address among public ones', async () => {
    const error = await failure(guarded.fetch('http://mixed.test/'));
    expect(error.code).toBe('BLOCKED_ADDRESS');
  });

  it('refuses a host name resolving to an IPv4-mapped IPv6 address', async () => {
    const error = await failure(guarded.fetch(`http://v6.test:${port}/`));
    expect(error.code).toBe('BLOCKED_ADDRESS');
  });

  it('refuses localhost with the real system resolver', async () => {
    const system = createSafeFetcher({ timeoutMs: 2_000 });
    const error = await failure(system.fetch(`http://localhost:${port}/ok.json`));
    system.close();
    expect(error.code).toBe('BLOCKED_ADDRESS');
  });

  it('re-checks every redirect hop: a redirect from an allowed host to 127.0.0.1 is refused', async () => {
    const fetcher = createSafeFetcher({ resolve: mapped, allowHosts: [`127.0.0.1:${port}`] });
    const ok = await fetcher.fetch(`${base}/redirect?to=${encodeURIComponent('/ok.json')}`);
    expect(ok.redirects).toBe(1);
    for (const target of [
      'http://127.0.0.1/',
      `http://127.0.0.1:${port + 1}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://evil.test:${port}/ok.json`,
    ]) {
      const error = await failure(
        fetcher.fetch(`${base}/redirect?to=${encodeURIComponent(target)}`),
      );
      expect(error.code, target).toBe('BLOCKED_ADDRESS');
    }
    fetcher.close();
  });

  it('refuses non-http schemes and credentials in URLs', async () => {
    expect((await failure(guarded.fetch('file:///etc/passwd'))).code).toBe('UNSUPPORTED_URI');
    expect((await failure(guarded.fetch('ftp://example.com/x'))).code).toBe('UNSUPPORTED_URI');
    expect((await failure(guarded.fetch('http://user:pw@example.com/'))).code).toBe('BAD_URI');
    expect((await failure(guarded.fetch('not a url'))).code).toBe('BAD_URI');
  });

  it('reports unknown hosts as network errors', async () => {
    expect((await failure(guarded.fetch('http://nowhere.test/'))).code).toBe('NETWORK');
  });
});

describe('createSafeFetcher: limits (private hosts allowed for the local test server)', () => {
  const fetcher = createSafeFetcher({
    allowPrivateHosts: true,
    maxBytes: 1024 * 1024,
    timeoutMs: 800,
    maxRedirects: 3,
  });
  afterAll(() => fetcher.close());

  it('loads a JSON document', async () => {
    const res = await fetcher.fetch(`${base}/ok.json`);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.body.toString()).toBe('{"name":"ok"}');
  });

  it('decompresses gzip bodies', async () => {
    const res = await fetcher.fetch(`${base}/gzip.json`);
    expect(res.body.toString()).toBe('{"name":"zipped"}');
  });

  it('caps decompressed size (gzip bomb)', async () => {
    expect((await failure(fetcher.fetch(`${base}/bomb.json`))).code).toBe('TOO_LARGE');
  });

  it('refuses an oversize declared Content-Length without reading it', async () => {
    expect((await failure(fetcher.fetch(`${base}/big-declared`))).code).toBe('TOO_LARGE');
  });

  it('aborts an oversize streamed body', async () => {
    const error = await failure(fetcher.fetch(`${base}/big-chunked`));
    expect(error.code).toBe('TOO_LARGE');
  });

  it('times out a slow body and a server that never answers', async () => {
    const started = Date.now();
    expect((await failure(fetcher.fetch(`${base}/slow`))).code).toBe('TIMEOUT');
    expect((await failure(fetcher.fetch(`${base}/hang`))).code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_900);
  });

  it('follows a bounded number of redirects', async () => {
    const ok = await fetcher.fetch(`${base}/redirect`);
    expect(ok.url).toBe(`${base}/ok.json`);
    const error = await failure(fetcher.fetch(`${base}/loop`));
    expect(error.code).toBe('TOO_MANY_REDIRECTS');
  });

  it('fails on non-2xx statuses', async () => {
    const error = await failure(fetcher.fetch(`${base}/404`));
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.message).toContain('404');
  });

  it('refuses content types the caller does not accept, before reading the body', async () => {
    const error = await failure(
      fetcher.fetch(`${base}/image`, { acceptContentType: (type) => !type?.startsWith('image/') }),
    );
    expect(error.code).toBe('BAD_CONTENT_TYPE');
    expect(error.message).toContain('image/png');
  });
});
