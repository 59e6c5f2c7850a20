import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { browserAvailable, CHROMIUM, CHROMIUM_ARGS } from './support/chromium.js';

/** Landing page, browser 404s and the Swagger UI page, over HTTP and in headless Chromium. */

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

describe('landing page and 404s', () => {
  it('GET / answers JSON to API clients: what this is, links and example requests', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await api.get('/', accept ? { accept } : {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.name).toBe('Sluice chain API');
      expect(body.links).toEqual({
        docs: '/docs',
        openapi: '/openapi.json',
        health: '/health',
        supported_chains: '/v1/evm/supported-chains',
      });
      expect(JSON.stringify(body.examples)).toContain('metadata=url,logo&exclude_spam_tokens');
    }
  });

  it('/start answers a browser with an HTML page linking docs, health and examples', async () => {
    const res = await api.get('/start', { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    for (const link of ['href="/docs"', 'href="/health"', 'href="/openapi.json"']) {
      expect(html).toContain(link);
    }
    expect(html).toContain('/v1/evm/balances/');
    expect(html).not.toContain(api.key);
  });

  it('GET / answers a browser with the console page (own scripts only; links work without them)', async () => {
    const res = await api.get('/', { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain('<div id="app">');
    for (const link of [
      'href="/docs"',
      'href="/health"',
      'href="/openapi.json"',
      'href="/start"',
    ]) {
      expect(html).toContain(link);
    }
    expect(html).not.toContain(api.key);
    expect(html).not.toContain('sluice-demo-key');
  });

  it('unknown paths: JSON for API clients, an HTML page for browsers (input escaped)', async () => {
    const json = await api.get('/nonexistent');
    expect(json.status).toBe(404);
    expect(await json.json()).toEqual({ error: 'Not found: GET /nonexistent' });
    const page = await api.get('/nonexistent/%3Cscript%3Ealert(1)%3C%2Fscript%3E', {
      accept: BROWSER_ACCEPT,
    });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('Not found');
    expect(html).not.toContain('<script>');
    expect(html).toContain('href="/"');
  });

  it('every answer carries X-Content-Type-Options: nosniff, text/plain 400s included', async () => {
    const bad = await api.get(`/v1/evm/activity/0xnotanaddress`, { 'x-sim-api-key': api.key });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await api.get('/')).headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe.skipIf(!browserAvailable)('in headless Chromium', () => {
  let browser: BrowserContext;
  let profile: string;
  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'sluice-chain-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function visit(path: string) {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const res = await page.goto(`${api.url}${path}`, { waitUntil: 'networkidle' });
    return { page, errors, status: res?.status() };
  }

  it('/docs is branded, has no default top bar, and logs no CSP or script error', async () => {
    const { page, errors, status } = await visit('/docs');
    expect(status).toBe(200);
    await page.getByText('Sluice chain API').first().waitFor({ timeout: 30_000 });
    expect(await page.title()).toBe('Sluice chain API · docs');
    expect(await page.locator('.topbar').count()).toBe(0);
    for (const link of await page.locator('a[href*="/docs/json"]').all()) {
      expect(await link.isVisible()).toBe(false);
    }
    expect(await page.locator('a[href="/openapi.json"]').first().isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('the getting-started page and a 404 render without console errors', async () => {
    for (const [path, code] of [
      ['/start', 200],
      ['/nonexistent', 404],
    ] as const) {
      const { page, errors, status } = await visit(path);
      expect(status).toBe(code);
      expect(await page.locator('h1').textContent()).toBe(
        code === 200 ? 'Sluice chain API' : 'Not found',
      );
      // Chromium logs the document's own 404 status; nothing else may fail.
      const expected =
        code === 404
          ? ['Failed to load resource: the server responded with a status of 404 (Not Found)']
          : [];
      expect(errors, path).toEqual(expected);
      await page.close();
    }
  }, 60_000);
});
