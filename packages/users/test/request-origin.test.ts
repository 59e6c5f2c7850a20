import { request } from 'node:http';
import type { TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw, startTestApp } from './helpers.js';

// Browsers send Origin, Sec-Fetch-Site and Host as the page and URL dictate; fetch() cannot set
// them freely, so these requests go through node:http with the headers a browser would send.
interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path: url.pathname, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,*/*;q=0.8';

describe('cross-site and foreign-host requests', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let base: string;
  let host: string;

  beforeAll(async () => {
    ({ t, app, base } = await startTestApp('postgres'));
    host = new URL(base).host;
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const exists = async (id: number) =>
    (await t.db.query('select 1 from users where id = $1', [id])).rowCount === 1;
  const create = async (id: number, name: string) => {
    const res = await send(
      base,
      'POST',
      '/add',
      { 'content-type': JSON_TYPE },
      JSON.stringify({ id, name, pro: 'p' }),
    );
    expect(res.status).toBe(201);
  };
  const nameOf = async (id: number) =>
    (await t.db.query<{ name: string }>('select name from users where id = $1', [id])).rows[0]
      ?.name;
  const expectRefused = (res: Answer, code: string) => {
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 403, error: 'Forbidden', code });
  };

  it('refuses a cross-site HTML form post to /add and creates nothing', async () => {
    const res = await send(
      base,
      'POST',
      '/add',
      {
        host,
        'content-type': FORM,
        accept: BROWSER_ACCEPT,
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
      },
      'id=1001&name=Forged&pro=csrf',
    );
    expectRefused(res, 'USERS_CROSS_SITE');
    expect(JSON.parse(res.body).message).toMatch(/Cross-site request refused.*cross-site/);
    expect(await exists(1001)).toBe(false);
  });

  it('refuses a cross-site JSON post, PUT and DELETE and changes nothing', async () => {
    await create(1002, 'Original');
    const crossSite = { host, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
    const json = { ...crossSite, 'content-type': JSON_TYPE };
    expectRefused(
      await send(base, 'POST', '/add', json, JSON.stringify({ id: 1003, name: 'x', pro: 'y' })),
      'USERS_CROSS_SITE',
    );
    expectRefused(
      await send(base, 'PUT', '/1002', json, JSON.stringify({ name: 'Changed', pro: 'y' })),
      'USERS_CROSS_SITE',
    );
    expectRefused(await send(base, 'DELETE', '/1002', crossSite), 'USERS_CROSS_SITE');
    expect(await exists(1003)).toBe(false);
    expect(await nameOf(1002)).toBe('Original');
  });

  it('refuses a foreign Origin from a browser that sends no Sec-Fetch-Site, and Origin null', async () => {
    for (const origin of [
      'http://evil.example',
      `http://evil.example:${new URL(base).port}`,
      'null',
    ]) {
      const res = await send(
        base,
        'POST',
        '/add',
        { host, origin, 'content-type': FORM },
        'id=1004&name=Forged&pro=csrf',
      );
      expectRefused(res, 'USERS_CROSS_SITE');
    }
    expect(await exists(1004)).toBe(false);
  });

  it('refuses a same-site page on another port (another local app)', async () => {
    const res = await send(
      base,
      'POST',
      '/add',
      { host, origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site', 'content-type': FORM },
      'id=1005&name=Neighbour&pro=csrf',
    );
    expectRefused(res, 'USERS_CROSS_SITE');
    expect(await exists(1005)).toBe(false);
  });

  it('refuses DNS rebinding: a foreign Host is refused on writes and reads', async () => {
    await create(1006, 'Private');
    // After rebinding, the attacker's page is same-origin to the browser; only Host gives it away.
    const rebound = `evil.example:${new URL(base).port}`;
    const res = await send(
      base,
      'POST',
      '/add',
      {
        host: rebound,
        origin: `http://${rebound}`,
        'sec-fetch-site': 'same-origin',
        'content-type': JSON_TYPE,
      },
      JSON.stringify({ id: 1007, name: 'Rebound', pro: 'x' }),
    );
    expectRefused(res, 'USERS_HOST_NOT_ALLOWED');
    expect(JSON.parse(res.body).message).toContain('evil.example');
    expect(await exists(1007)).toBe(false);
    const read = await send(base, 'GET', '/1006', {
      host: rebound,
      'sec-fetch-site': 'same-origin',
    });
    expectRefused(read, 'USERS_HOST_NOT_ALLOWED');
    expect(read.body).not.toContain('Private');
  });

  it('lets same-origin browsers write: with Sec-Fetch-Site, and with only a matching Origin', async () => {
    const sameOrigin = { host, origin: base, 'sec-fetch-site': 'same-origin' };
    const form = await send(
      base,
      'POST',
      '/add',
      { ...sameOrigin, 'content-type': FORM, accept: BROWSER_ACCEPT },
      'id=1008&name=Form&pro=ok',
    );
    expect(form.status).toBe(303);
    expect(await exists(1008)).toBe(true);
    const put = await send(
      base,
      'PUT',
      '/1008',
      { ...sameOrigin, 'content-type': JSON_TYPE },
      JSON.stringify({ name: 'Edited', pro: 'ok' }),
    );
    expect(put.status).toBe(200);
    expect(await nameOf(1008)).toBe('Edited');
    const older = await send(
      base,
      'POST',
      '/add',
      { host, origin: base, 'content-type': JSON_TYPE },
      JSON.stringify({ id: 1009, name: 'Older browser', pro: 'ok' }),
    );
    expect(older.status).toBe(201);
    expect((await send(base, 'DELETE', '/1008', sameOrigin)).status).toBe(204);
    expect(await exists(1008)).toBe(false);
  });

  it('lets non-browser clients (no Origin, no Sec-Fetch-Site) write, on localhost names too', async () => {
    const json = { 'content-type': JSON_TYPE };
    const res = await send(
      base,
      'POST',
      '/add',
      json,
      JSON.stringify({ id: 1010, name: 'Curl', pro: 'ok' }),
    );
    expect(res.status).toBe(201);
    const viaLocalhost = await send(
      base,
      'PUT',
      '/1010',
      { ...json, host: `localhost:${new URL(base).port}` },
      JSON.stringify({ name: 'Curl again', pro: 'ok' }),
    );
    expect(viaLocalhost.status).toBe(200);
    expect(await nameOf(1010)).toBe('Curl again');
  });

  it('answers a refused write at once and closes the connection without reading its body', async () => {
    // Headers and a body that never completes: the refusal must not wait for the rest.
    const { received, ms } = await sendRaw(
      base,
      `POST /add HTTP/1.1\r\nHost: ${host}\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":1011`,
    );
    expect(ms).toBeLessThan(3_000);
    expect(received).toMatch(/^HTTP\/1\.1 403 /);
    expect(received).toContain('USERS_CROSS_SITE');
    expect(await exists(1011)).toBe(false);
  });

  it('shows a browser a 403 page for a foreign Host', async () => {
    const res = await send(base, 'GET', '/users', { host: 'evil.example', accept: BROWSER_ACCEPT });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('evil.example');
  });
});

describe('configured hosts and origins', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    ({ t, app, base } = await startTestApp('postgres', {
      allowedHosts: ['users.example.com'],
      allowedOrigins: ['https://admin.example.com'],
    }));
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it('serves an allowed Host and accepts writes from a trusted origin only', async () => {
    const postFrom = (origin: string, id: number) =>
      send(
        base,
        'POST',
        '/add',
        {
          host: 'users.example.com',
          origin,
          'sec-fetch-site': 'cross-site',
          'content-type': JSON_TYPE,
        },
        JSON.stringify({ id, name: 'From elsewhere', pro: 'ok' }),
      );
    expect((await postFrom('https://admin.example.com', 2001)).status).toBe(201);
    const other = await postFrom('https://evil.example', 2002);
    expect(other.status).toBe(403);
    // The list replaces the default: 127.0.0.1 is no longer a name this app serves.
    expect((await send(base, 'GET', '/users', { host: new URL(base).host })).status).toBe(403);
  });
});
