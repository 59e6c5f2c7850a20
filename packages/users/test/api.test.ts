import { type Database, migrate, openDatabase } from '@sluice/db';
import type { TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { userMigrations } from '../src/store/migrations.js';
import { createSqlUserStore } from '../src/store/sql-user-store.js';
import { startTestApp } from './helpers.js';

interface UserBody {
  _id: string;
  id: number;
  name: string;
  pro: string;
}
interface ErrorBody {
  error: string;
  message: string;
  statusCode: number;
  code: string;
  fields?: Record<string, string>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

describe.each(['pglite', 'postgres'] as const)('users API on %s', (kind) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let base: string;

  const post = (body: unknown, headers: Record<string, string> = JSON_HEADERS) =>
    fetch(`${base}/add`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const put = (path: string, body: unknown, headers: Record<string, string> = JSON_HEADERS) =>
    fetch(`${base}${path}`, {
      method: 'PUT',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const expectError = async (res: Response, status: number, code: string): Promise<ErrorBody> => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ statusCode: status, code });
    expect(typeof body.error).toBe('string');
    expect(typeof body.message).toBe('string');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
    return body;
  };

  beforeAll(async () => {
    ({ t, app, base } = await startTestApp(kind));
  });

  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  // Every test starts from an empty table and creates what it reads, so none depends on another
  // having run (or on the order they run in).
  beforeEach(async () => {
    await t.db.query('delete from users');
  });

  const createUsers = async (...ids: number[]) => {
    for (const id of ids) {
      expect((await post({ id, name: `user ${id}`, pro: 'tester' })).status).toBe(201);
    }
  };

  it('runs migrations idempotently', async () => {
    expect(await migrate(t.db, userMigrations)).toEqual([]);
  });

  it('lists users ordered by id with limit/offset, X-Total-Count and Link', async () => {
    let res = await fetch(`${base}/users`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    expect(res.headers.get('x-total-count')).toBe('0');
    await createUsers(5, 3, 1, 4, 2);
    res = await fetch(`${base}/users`);
    const all = (await res.json()) as UserBody[];
    expect(all.map((u) => u.id)).toEqual([1, 2, 3, 4, 5]);
    expect(Object.keys(all[0] ?? {})).toEqual(['_id', 'id', 'name', 'pro']);
    expect(res.headers.get('x-total-count')).toBe('5');
    expect(res.headers.get('link')).toBeNull();

    res = await fetch(`${base}/users?limit=2&offset=2`);
    expect(((await res.json()) as UserBody[]).map((u) => u.id)).toEqual([3, 4]);
    expect(res.headers.get('x-total-count')).toBe('5');
    const link = res.headers.get('link') ?? '';
    expect(link).toContain('</users?limit=2&offset=4>; rel="next"');
    expect(link).toContain('</users?limit=2&offset=0>; rel="prev"');
    expect(link).toContain('</users?limit=2&offset=4>; rel="last"');

    res = await fetch(`${base}/users?offset=50`);
    expect(await res.json()).toEqual([]);
    expect(res.headers.get('x-total-count')).toBe('5');
    expect((await fetch(`${base}/users?limit=1000`)).status).toBe(200);
    expect((await fetch(`${base}/users/`)).status).toBe(200);
  });

  it('revalidates cached pages: ETag/304, and writes from elsewhere show up at once', async () => {
    await createUsers(1, 2, 3, 4, 5);
    const first = await fetch(`${base}/users`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"v\d+-100-0"$/);
    const again = await fetch(`${base}/users`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // Another writer (a second process in production) changes the table directly.
    await t.db.query(`update users set name = 'changed elsewhere' where id = 1`);
    const after = await fetch(`${base}/users`, { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(((await after.json()) as UserBody[])[0]?.name).toBe('changed elsewhere');
    await t.db.query(`delete from users where id = 1`);
    expect(((await (await fetch(`${base}/users`)).json()) as UserBody[]).map((u) => u.id)).toEqual([
      2, 3, 4, 5,
    ]);
    await t.db.query(
      `insert into users (_id, id, name, pro) values ('0123456789abcdef01234567', 1, 'user 1', 'tester')`,
    );
    expect(((await (await fetch(`${base}/users`)).json()) as UserBody[])[0]).toEqual({
      _id: '0123456789abcdef01234567',
      id: 1,
      name: 'user 1',
      pro: 'tester',
    });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['limit=1&limit=2', 'limit'],
  ])('rejects pagination %s with 400', async (query, field) => {
    const body = await expectError(
      await fetch(`${base}/users?${query}`),
      400,
      'USERS_INVALID_QUERY',
    );
    expect(body.fields?.[field]).toMatch(/must be an integer/);
  });

  it('creates a user: 201, Location, generated _id, trimmed text', async () => {
    const res = await post({ id: 100, name: '  Ada Lovelace ', pro: ' mathematician ' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/100');
    const user = (await res.json()) as UserBody;
    expect(user).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      id: 100,
      name: 'Ada Lovelace',
      pro: 'mathematician',
    });
    const fetched = await fetch(`${base}/100`);
    expect(await fetched.json()).toEqual(user);
  });

  it('accepts an id given as a digit string and a name of exactly 200 characters', async () => {
    const res = await post({ id: '101', name: 'n'.repeat(200), pro: 'é'.repeat(200) });
    expect(res.status).toBe(201);
    expect(((await res.json()) as UserBody).id).toBe(101);
  });

  it('creates from an url-encoded form: 201 for API clients, 303 for browsers', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    let res = await post('id=102&name=Grace+Hopper&pro=admiral', form);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: 102, name: 'Grace Hopper', pro: 'admiral' });
    res = await fetch(`${base}/add`, {
      method: 'POST',
      headers: { ...form, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      body: 'id=103&name=Alan&pro=logician',
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/users');
    const bad = await expectError(await post('id=x&name=&pro=p', form), 400, 'USERS_VALIDATION');
    expect(Object.keys(bad.fields ?? {}).sort()).toEqual(['id', 'name']);
  });

  it('rejects invalid fields with a message per field', async () => {
    const body = await expectError(await post({}), 400, 'USERS_VALIDATION');
    expect(body.fields).toEqual({
      id: 'id is required',
      name: 'name is required',
      pro: 'pro is required',
    });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ id: 0 }, 'id', /positive integer/],
      [{ id: -1 }, 'id', /positive integer/],
      [{ id: 1.5 }, 'id', /positive integer/],
      [{ id: 'abc' }, 'id', /positive integer/],
      [{ id: 2 ** 53 }, 'id', /9007199254740991/],
      [{ id: '99999999999999999999' }, 'id', /positive integer/],
      [{ id: true }, 'id', /positive integer/],
      [{ id: null }, 'id', /positive integer/],
      [{ name: '   ' }, 'name', /must not be empty/],
      [{ name: 'x'.repeat(201) }, 'name', /at most 200/],
      [{ name: 42 }, 'name', /must be a string/],
      [{ name: ['a'] }, 'name', /must be a string/],
      [{ name: 'a\u0000b' }, 'name', /control characters/],
      [{ name: 'line\nbreak' }, 'name', /control characters/],
      [{ name: 'bad \ud800 surrogate' }, 'name', /valid Unicode/],
      [{ pro: '' }, 'pro', /must not be empty/],
      [{ pro: { a: 1 } }, 'pro', /must be a string/],
      [{ extra: 1 }, 'extra', /unknown field/],
      [{ _id: 'aaaaaaaaaaaaaaaaaaaaaaaa' }, '_id', /generated by the store/],
    ];
    for (const [patch, field, message] of cases) {
      const res = await post({ id: 900, name: 'Valid', pro: 'Valid', ...patch });
      const err = await expectError(res, 400, 'USERS_VALIDATION');
      expect(err.fields?.[field], `${JSON.stringify(patch)}`).toMatch(message);
      expect(Object.keys(err.fields ?? {})).toEqual([field]);
    }
    expect((await fetch(`${base}/900`)).status).toBe(404);
  });

  it('rejects bodies that are not objects, invalid JSON and empty bodies', async () => {
    for (const body of ['[]', 'null', '"text"', '42']) {
      await expectError(await post(body), 400, 'USERS_VALIDATION');
    }
    const invalid = await expectError(await post('{"id": 1,'), 400, 'USERS_INVALID_JSON');
    expect(invalid.message).toMatch(/not valid JSON/);
    await expectError(await post(''), 400, 'USERS_INVALID_JSON');
  });

  it('refuses __proto__, constructor and prototype keys without touching any prototype', async () => {
    await createUsers(100);
    const bodies = [
      '{"id": 950, "name": "a", "pro": "b", "__proto__": {"polluted": true}}',
      '{"id": 950, "name": "a", "pro": "b", "constructor": {"prototype": {"polluted": true}}}',
      '{"id": 950, "name": "a", "pro": "b", "constructor": "x"}',
      '{"id": 950, "name": {"__proto__": {"polluted": true}}, "pro": "b"}',
    ];
    for (const body of bodies) {
      const err = await expectError(await post(body), 400, 'USERS_FORBIDDEN_KEY');
      expect(err.message).toMatch(/forbidden key "(__proto__|constructor|prototype)"/);
    }
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const body of ['id=950&name=a&pro=b&__proto__=1', 'id=950&name=a&pro=b&constructor=x']) {
      await expectError(await post(body, form), 400, 'USERS_FORBIDDEN_KEY');
    }
    await expectError(
      await put('/100', '{"name": "a", "pro": "b", "__proto__": {"x": 1}}'),
      400,
      'USERS_FORBIDDEN_KEY',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${base}/950`)).status).toBe(404);
    expect(await (await fetch(`${base}/100`)).json()).toMatchObject({ name: 'user 100' });
  });

  it('answers 415 to other content types and 413 to large bodies', async () => {
    await createUsers(100);
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
      const err = await expectError(
        await post('id=1', { 'content-type': type }),
        415,
        'USERS_UNSUPPORTED_MEDIA_TYPE',
      );
      expect(err.message).toMatch(/application\/json/);
    }
    await expectError(
      await put('/100', 'name=a', { 'content-type': 'text/plain' }),
      415,
      'USERS_UNSUPPORTED_MEDIA_TYPE',
    );
    const big = JSON.stringify({ id: 960, name: 'x'.repeat(20_000), pro: 'p' });
    await expectError(await post(big), 413, 'USERS_BODY_TOO_LARGE');
    await expectError(await put('/100', big), 413, 'USERS_BODY_TOO_LARGE');
    expect((await fetch(`${base}/960`)).status).toBe(404);
    expect(await (await fetch(`${base}/100`)).json()).toMatchObject({ name: 'user 100' });
  });

  it('answers 409 to a duplicate id and keeps the first record', async () => {
    expect((await post({ id: 110, name: 'First', pro: 'p' })).status).toBe(201);
    const err = await expectError(
      await post({ id: 110, name: 'Second', pro: 'p' }),
      409,
      'USERS_DUPLICATE_ID',
    );
    expect(err.fields).toEqual({ id: '110 is already taken' });
    expect(await (await fetch(`${base}/110`)).json()).toMatchObject({ name: 'First' });
  });

  it('gives exactly one 201 to 50 parallel creates of the same id', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post({ id: 120, name: `racer ${i}`, pro: 'p' })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const { rows } = await t.db.query<{ n: string }>(
      'select count(*) as n from users where id = 120',
    );
    expect(rows[0]?.n).toBe('1');
  });

  it('gets a user by id: 200, 404, 400 on malformed ids', async () => {
    await createUsers(100);
    const res = await fetch(`${base}/100`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 100, name: 'user 100', pro: 'tester' });
    await expectError(await fetch(`${base}/424242`), 404, 'USERS_NOT_FOUND');
    for (const id of ['abc', '0', '-1', '1.5', '1e3', '99999999999999999', '%20', '0x10']) {
      await expectError(await fetch(`${base}/${id}`), 400, 'USERS_INVALID_ID');
    }
  });

  it('updates with PUT /:id: 200, path id wins, 404, 400', async () => {
    expect((await post({ id: 130, name: 'Old', pro: 'old' })).status).toBe(201);
    const before = (await (await fetch(`${base}/130`)).json()) as UserBody;
    let res = await put('/130', { name: ' New ', pro: 'new' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...before, name: 'New', pro: 'new' });
    res = await put('/130', { id: 130, name: 'Same id', pro: 'ok' });
    expect(res.status).toBe(200);
    res = await put('/130', 'name=Form+update&pro=ok', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(await res.json()).toMatchObject({ name: 'Form update' });
    const mismatch = await expectError(
      await put('/130', { id: 131, name: 'x', pro: 'y' }),
      400,
      'USERS_ID_MISMATCH',
    );
    expect(mismatch.fields?.id).toMatch(/path id 130/);
    const partial = await expectError(
      await put('/130', { name: 'only name' }),
      400,
      'USERS_VALIDATION',
    );
    expect(partial.fields).toEqual({ pro: 'pro is required' });
    await expectError(
      await put('/130', { name: 'x', pro: 'y', _id: before._id }),
      400,
      'USERS_VALIDATION',
    );
    await expectError(
      await put('/130', { name: 'x', pro: 'y', role: 'admin' }),
      400,
      'USERS_VALIDATION',
    );
    await expectError(await put('/131', { name: 'x', pro: 'y' }), 404, 'USERS_NOT_FOUND');
    await expectError(await put('/abc', { name: 'x', pro: 'y' }), 400, 'USERS_INVALID_ID');
    await expectError(await put('/130', '{bad'), 400, 'USERS_INVALID_JSON');
    expect(await (await fetch(`${base}/130`)).json()).toMatchObject({ name: 'Form update' });
  });

  it('deletes with DELETE /:id: 204 then 404; 400 on malformed ids', async () => {
    expect((await post({ id: 140, name: 'Gone', pro: 'soon' })).status).toBe(201);
    let res = await fetch(`${base}/140`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectError(await fetch(`${base}/140`), 404, 'USERS_NOT_FOUND');
    res = await fetch(`${base}/140`, { method: 'DELETE' });
    await expectError(res, 404, 'USERS_NOT_FOUND');
    await expectError(await fetch(`${base}/x`, { method: 'DELETE' }), 400, 'USERS_INVALID_ID');
  });

  it('serves the edit page filled from the stored record, query values only as a proposed change', async () => {
    expect((await post({ id: 150, name: 'Stored name', pro: 'Stored pro' })).status).toBe(201);
    let res = await fetch(`${base}/edit?id=150&name=Query+name`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const page = await res.text();
    expect(page).toContain(
      '<input id="name" name="name" type="text" required maxlength="200" autocomplete="name" value="Stored name"',
    );
    expect(page).toContain('value="Stored pro"');
    expect(page).toContain('Proposed change (from the link, not saved)');
    expect(page).toContain('Name: <strong>Query name</strong> (stored: Stored name)');
    expect(page).not.toContain('value="Query name"');
    // Nothing proposed when the link carries the stored values (or none).
    expect(await (await fetch(`${base}/edit?id=150&name=Stored+name`)).text()).not.toContain(
      'Proposed change',
    );
    expect(page).toContain('data-json-method="PUT" data-json-action="/150"');
    expect(await (await fetch(`${base}/150`)).json()).toMatchObject({ name: 'Stored name' });
    res = await fetch(`${base}/edit?id=150&name=%22%3E%3Cscript%3Ealert(1)%3C/script%3E`);
    const xss = await res.text();
    expect(xss).not.toContain('"><script>alert(1)');
    expect(xss).toContain('<strong>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</strong>');
    await expectError(await fetch(`${base}/edit?id=151`), 404, 'USERS_NOT_FOUND');
    await expectError(await fetch(`${base}/edit?id=abc`), 400, 'USERS_INVALID_ID');
    await expectError(await fetch(`${base}/edit?id=-4`), 400, 'USERS_INVALID_ID');
    await expectError(await fetch(`${base}/edit`), 400, 'USERS_INVALID_ID');
    await expectError(await fetch(`${base}/edit?id=1&id=2`), 400, 'USERS_INVALID_ID');
    await expectError(await fetch(`${base}/edit?id=150&name=a&name=b`), 400, 'USERS_INVALID_QUERY');
  });

  it('renders the HTML list for browsers with every user text escaped', async () => {
    const evil = '<script>alert("xss")</script>';
    expect((await post({ id: 160, name: evil, pro: '<img src=x onerror=alert(1)>' })).status).toBe(
      201,
    );
    const res = await fetch(`${base}/users?limit=1000`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('vary')).toMatch(/accept/i);
    const page = await res.text();
    expect(page).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain(evil);
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('href="/edit?id=160"');
    expect(page).toContain('data-delete-id="160"');
    // The JSON API keeps the text as given.
    const json = (await (await fetch(`${base}/160`)).json()) as UserBody;
    expect(json.name).toBe(evil);
    // Enough rows for a previous and a next page around offset 2.
    await createUsers(161, 162, 163, 164);
    const paged = await fetch(`${base}/users?limit=2&offset=2`, {
      headers: { accept: 'text/html' },
    });
    const pager = await paged.text();
    expect(pager).toContain('<a rel="next" href="/users?limit=2&amp;offset=4">Next</a>');
    expect(pager).toContain('<a rel="prev" href="/users?limit=2&amp;offset=0">Previous</a>');
  });

  it('answers 405 with Allow on known paths and 404 on unknown routes', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/users', 'GET, HEAD, OPTIONS'],
      ['PUT', '/users', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/users', 'GET, HEAD, OPTIONS'],
      ['PUT', '/add', 'GET, POST, HEAD, OPTIONS'],
      ['DELETE', '/add', 'GET, POST, HEAD, OPTIONS'],
      ['POST', '/edit', 'GET, HEAD, OPTIONS'],
      ['POST', '/100', 'GET, PUT, DELETE, HEAD, OPTIONS'],
      ['PATCH', '/100', 'GET, PUT, DELETE, HEAD, OPTIONS'],
      ['DELETE', '/health', 'GET, HEAD, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await fetch(`${base}${path}`, { method });
      await expectError(res, 405, 'USERS_METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe(allow);
    }
    const options = await fetch(`${base}/100`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, PUT, DELETE, HEAD, OPTIONS');
    for (const path of ['/a/b', '/users/1/x', '/assets/missing.js', '/100/edit']) {
      const err = await expectError(await fetch(`${base}${path}`), 404, 'USERS_ROUTE_NOT_FOUND');
      expect(err.message).toContain(path);
    }
  });

  it('keeps /:id from swallowing static routes, pages, assets and docs', async () => {
    expect((await fetch(`${base}/users`)).headers.get('content-type')).toMatch(/json/);
    const add = await fetch(`${base}/add`);
    expect(add.status).toBe(200);
    expect(await add.text()).toContain('<form class="user-form" method="post" action="/add"');
    const js = await fetch(`${base}/assets/app.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = js.headers.get('etag') ?? '';
    expect(
      (await fetch(`${base}/assets/app.js`, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    expect((await fetch(`${base}/assets/app.css`)).headers.get('content-type')).toMatch(
      /text\/css/,
    );
    expect((await fetch(`${base}/favicon.ico`)).status).toBe(204);
    expect((await fetch(`${base}/favicon.svg`)).status).toBe(200);
    // The landing page: JSON for API clients, HTML for browsers.
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect(root.status).toBe(200);
    expect(root.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await root.json()).toMatchObject({
      name: 'Sluice users',
      links: { ui: '/users', docs: '/docs', openapi: '/openapi.json', health: '/health' },
    });
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const landing = await fetch(`${base}/`, { headers: { accept: browserAccept } });
    expect(landing.headers.get('content-type')).toMatch(/^text\/html/);
    const landingHtml = await landing.text();
    for (const href of ['/users', '/docs', '/health'])
      expect(landingHtml).toContain(`href="${href}"`);
    const missing = await fetch(`${base}/nonexistent/%3Cb%3E`, {
      headers: { accept: browserAccept },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    const missingHtml = await missing.text();
    expect(missingHtml).toContain('<h1>Not found</h1>');
    expect(missingHtml).not.toContain('<b>');
    // A 400 echoing input carries nosniff too.
    const bad = await fetch(`${base}/abc`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-content-type-options')).toBe('nosniff');
    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/users', '/add', '/edit', '/{id}', '/health']),
    );
    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
    expect((await fetch(`${base}/users`, { method: 'HEAD' })).status).toBe(200);
  });

  it('reports health with the database kind', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', database: kind });
  });

  it('answers 503 on /health and a JSON 5xx without internals once the database is gone', async () => {
    // Its own app and database: closing the shared one would break every test that runs after.
    const own = await startTestApp(kind);
    try {
      await own.t.db.close();
      const health = await fetch(`${own.base}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'unavailable', database: kind });
      const res = await fetch(`${own.base}/100`);
      expect(res.status).toBeGreaterThanOrEqual(500);
      const body = (await res.json()) as ErrorBody;
      expect(body.message).toMatch(/^(Internal server error|Database unavailable)$/);
      expect(JSON.stringify(body)).not.toMatch(/stack|pool|PGlite/i);
    } finally {
      await own.app.close();
      await own.t.drop();
    }
    // A fresh PGlite folder takes a while to initialise on a loaded machine.
  }, 120_000);
});

describe('users API with its database unreachable', () => {
  let app: FastifyInstance;
  let base: string;
  let db: Database;

  beforeAll(async () => {
    // Nothing listens on port 1: every query fails to connect.
    db = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none' });
    app = await buildApp({ store: createSqlUserStore(db), databaseKind: db.kind, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('answers 503 JSON without connection details, and /health 503', async () => {
    for (const res of [
      await fetch(`${base}/users`),
      await fetch(`${base}/1`),
      await fetch(`${base}/add`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ id: 1, name: 'a', pro: 'b' }),
      }),
    ]) {
      expect(res.status).toBe(503);
      const body = (await res.json()) as ErrorBody;
      expect(body).toEqual({
        error: 'Service Unavailable',
        message: 'Database unavailable',
        statusCode: 503,
        code: 'USERS_DATABASE_UNAVAILABLE',
      });
    }
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({
      status: 'unavailable',
      database: 'postgres',
      message: 'Database unavailable',
    });
  });
});
