import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import {
  BASE,
  createBody,
  testResolver,
  type WebhookClient,
  webhookClient,
} from './webhook-client.js';

/**
 * Bad input to the Subscriptions API: every invalid body is a 422 in plain text naming the
 * field, and delivery URLs at private, loopback, link-local or metadata addresses are refused
 * unless WEBHOOK_ALLOW_HOSTS lets the host through.
 */

const resolver = testResolver({
  'internal.test': ['10.1.2.3'],
  'rebind.test': ['93.184.216.34', '127.0.0.1'],
  'v6-local.test': ['fd00::5'],
  'nowhere.test': null,
});

let api: TestApi;
let a: WebhookClient;

beforeAll(async () => {
  api = await startTestApi({ webhooks: { resolve: resolver } });
  a = webhookClient(api, api.key);
});
afterAll(async () => {
  await api?.close();
});

async function expectPlainError(
  res: Promise<{ status: number; contentType: string; text: string }>,
  status = 422,
) {
  const answer = await res;
  expect(answer.status, answer.text).toBe(status);
  expect(answer.contentType).toMatch(/^text\/plain/);
  return answer.text;
}

describe('create body validation', () => {
  it('takes a caller-chosen signing secret, or refuses a weak one naming the field', async () => {
    const chosen = 'demo-secret-configured-on-the-receiver';
    const ok = await a.send('POST', BASE, createBody({ secret: chosen }));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.secret).toBe(chosen);
    for (const bad of ['short', 'x'.repeat(257), 'has spaces in it and is long enough', 42]) {
      expect(await expectPlainError(a.send('POST', BASE, createBody({ secret: bad })))).toMatch(
        /`secret`/,
      );
    }
  });

  it.each(['name', 'url', 'type', 'addresses'])('names a missing %s', async (field) => {
    const body = createBody();
    delete body[field];
    expect(await expectPlainError(a.send('POST', BASE, body))).toBe(
      `Failed to deserialize the JSON body into the target type: missing field \`${field}\``,
    );
  });

  it.each([
    [
      { name: 5 },
      'Failed to deserialize the JSON body into the target type: `name`: invalid type: an integer, expected a string',
    ],
    [{ name: '  ' }, 'Invalid `name`: empty'],
    [{ name: 'a\u0000b' }, 'Invalid `name`: contains control characters'],
    [{ name: 'x'.repeat(257) }, 'Invalid `name`: longer than 256 characters'],
    [{ url: 'not a url' }, 'Invalid `url`: contains whitespace'],
    [{ url: 'example.com/hook' }, 'Invalid `url`: not an absolute URL'],
    [
      { url: 'ftp://example.com/hook' },
      'Invalid `url`: scheme ftp is not allowed; use http or https',
    ],
    [
      { url: 'javascript:alert(1)' },
      'Invalid `url`: scheme javascript is not allowed; use http or https',
    ],
    [
      { url: 'https://user:pw@example.com/hook' },
      'Invalid `url`: credentials in URLs are not allowed',
    ],
    [
      { url: `https://example.com/${'a'.repeat(2048)}` },
      'Invalid `url`: longer than 2048 characters',
    ],
    [
      { type: 'swaps' },
      'Failed to deserialize the JSON body into the target type: `type`: unknown variant `swaps`, expected one of `transactions`, `activities`, `balances`',
    ],
    [
      { addresses: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
      'Failed to deserialize the JSON body into the target type: `addresses`: invalid type: a string, expected an array of addresses',
    ],
    [{ addresses: null }, 'Invalid `addresses`: expected an array, got null'],
    [
      { addresses: ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', '0x12'] },
      'Invalid `addresses[1]`: "0x12" is not an address (0x followed by 40 hex digits)',
    ],
    [
      { addresses: [42] },
      'Failed to deserialize the JSON body into the target type: `addresses[0]`: invalid type: an integer, expected an address string',
    ],
    [
      { token_address: 'usdc' },
      'Invalid `token_address`: "usdc" is not an address (0x followed by 40 hex digits)',
    ],
    [
      { asset_type: 'erc777' },
      'Failed to deserialize the JSON body into the target type: `asset_type`: unknown variant `erc777`, expected one of `native`, `erc20`, `erc721`, `erc1155`',
    ],
    [
      { chain_ids: [1, 999_999] },
      'Invalid `chain_ids[1]`: chain 999999 is not supported (see /v1/evm/supported-chains)',
    ],
    [
      { chain_ids: ['1'] },
      'Failed to deserialize the JSON body into the target type: `chain_ids[0]`: invalid type: a string, expected an integer',
    ],
    [
      { chain_ids: [1.5] },
      'Failed to deserialize the JSON body into the target type: `chain_ids[0]`: invalid type: a number, expected an integer',
    ],
    [
      { chain_ids: [] },
      'Invalid `chain_ids`: empty; omit it or pass null for every supported chain',
    ],
    [
      { chain_ids: 1 },
      'Failed to deserialize the JSON body into the target type: `chain_ids`: invalid type: an integer, expected an array of integers',
    ],
    [{ confirmations: -1 }, 'Invalid `confirmations`: must be from 0 to 1000'],
    [{ confirmations: 1001 }, 'Invalid `confirmations`: must be from 0 to 1000'],
    [
      { confirmations: '3' },
      'Failed to deserialize the JSON body into the target type: `confirmations`: invalid type: a string, expected an integer',
    ],
    [
      { active: 'yes' },
      'Failed to deserialize the JSON body into the target type: `active`: invalid type: a string, expected a boolean',
    ],
  ])('refuses %j', async (override, message) => {
    expect(await expectPlainError(a.send('POST', BASE, createBody(override)))).toBe(message);
  });

  it.each([
    ['balances', { transaction_type: 'sender' }, 'transaction_type'],
    ['balances', { activity_type: 'swap' }, 'activity_type'],
    ['activities', { counterparty: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' }, 'counterparty'],
    ['transactions', { activity_type: 'send' }, 'activity_type'],
  ])('refuses a %s webhook with %j', async (type, filter, field) => {
    const body = createBody({ type, ...filter });
    expect(await expectPlainError(a.send('POST', BASE, body))).toBe(
      `Webhook type ${type} cannot have ${field}`,
    );
  });

  it('refuses bodies that are not a JSON object', async () => {
    expect(await expectPlainError(a.sendRaw('POST', BASE, '{"name": "x",'))).toMatch(
      /^Failed to parse the request body as JSON: /,
    );
    expect(await expectPlainError(a.sendRaw('POST', BASE, '[1, 2]'))).toBe(
      'Failed to deserialize the JSON body into the target type: invalid type: an array, expected a JSON object',
    );
    expect(await expectPlainError(a.sendRaw('POST', BASE, ''))).toBe(
      'Failed to deserialize the JSON body into the target type: invalid type: an empty body, expected a JSON object',
    );
    // fetch sends a string body as text/plain unless told otherwise: still read as JSON.
    const plain = await a.sendRaw('POST', BASE, JSON.stringify(createBody()), 'text/plain');
    expect(plain.status, plain.text).toBe(200);
    const form = await a.sendRaw('POST', BASE, 'name=x', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect(form.contentType).toMatch(/^text\/plain/);
  });

  it('refuses a body over 2 MiB with 413 before reading it', async () => {
    const huge = JSON.stringify(createBody({ name: 'x'.repeat(3 * 1024 * 1024) }));
    const res = await a.sendRaw('POST', BASE, huge);
    expect(res.status).toBe(413);
    expect(res.contentType).toMatch(/^text\/plain/);
    const { rows } = await api.t.db.query<{ n: number }>(
      "select count(*)::int as n from webhooks where name like 'xxxx%'",
    );
    expect(rows[0]?.n).toBe(0);
  });
});

describe('update and address body validation', () => {
  let id: string;
  beforeAll(async () => {
    const res = await a.send('POST', BASE, createBody());
    id = res.json.id;
  });

  it('refuses filters the type cannot have, and fields PATCH does not change', async () => {
    const path = `${BASE}/${id}`;
    // The peer's OpenAPI answers 400 (text/plain) for these on PATCH, 422 on create.
    expect(await expectPlainError(a.send('PATCH', path, { activity_type: 'swap' }), 400)).toBe(
      'Webhook type balances cannot have activity_type',
    );
    expect(await expectPlainError(a.send('PATCH', path, { transaction_type: 'sender' }), 400)).toBe(
      'Webhook type balances cannot have transaction_type',
    );
    expect(await expectPlainError(a.send('PATCH', path, { addresses: [] }))).toMatch(
      /^Invalid `addresses`: not changed here; use PUT or PATCH/,
    );
    expect(await expectPlainError(a.send('PATCH', path, { type: 'transactions' }))).toBe(
      "Invalid `type`: a webhook's type cannot change (this one is balances)",
    );
    expect(await expectPlainError(a.send('PATCH', path, { active: 'false' }))).toContain(
      '`active`',
    );
    expect(
      await expectPlainError(a.send('PATCH', path, { chain_ids: [31337, 999_998] })),
    ).toContain('`chain_ids[1]`');
    // Null for an impossible filter is no filter: accepted.
    const ok = await a.send('PATCH', path, { activity_type: null, type: 'balances' });
    expect(ok.status, ok.text).toBe(200);
    const unchanged = await a.send('GET', path);
    expect(unchanged.json).toMatchObject({ name: 'USDC Balance Monitor', chain_ids: [1, 8453] });
  });

  it('refuses bad address changes, naming the field', async () => {
    const path = `${BASE}/${id}/addresses`;
    const x = '0x3f60008dfd0efc03f476d9b489d6c5b13b3ebf2c';
    expect(
      await expectPlainError(a.send('PATCH', path, { add_addresses: [x], remove_addresses: [x] })),
    ).toBe(`Invalid \`add_addresses\`: ${x} is also in remove_addresses`);
    expect(await expectPlainError(a.send('PATCH', path, { add_addresses: x }))).toContain(
      '`add_addresses`: invalid type: a string',
    );
    expect(await expectPlainError(a.send('PATCH', path, { remove_addresses: ['0xzz'] }))).toContain(
      '`remove_addresses[0]`',
    );
    expect(await expectPlainError(a.send('PUT', path, {}))).toBe(
      'Failed to deserialize the JSON body into the target type: missing field `addresses`',
    );
    expect(await expectPlainError(a.send('PUT', path, { addresses: ['nope'] }))).toContain(
      '`addresses[0]`',
    );
    const still = await a.send('GET', path);
    expect(still.json.addresses).toEqual(['0xd8da6bf26964af9d7eed9e03e53415d37aa96045']);
  });
});

describe('delivery URL policy', () => {
  it.each([
    ['http://127.0.0.1/hook', 'host 127.0.0.1 is a loopback address'],
    ['http://10.0.0.1/hook', 'host 10.0.0.1 is a private address'],
    ['http://169.254.169.254/latest/meta-data/', 'host 169.254.169.254 is a link-local address'],
    ['http://[::1]:8080/hook', 'host [::1] is a loopback address'],
    ['http://[::ffff:127.0.0.1]/hook', 'host [::ffff:7f00:1] is an ipv4-mapped address'],
    ['http://0.0.0.0:3000/', 'host 0.0.0.0 is an unspecified address'],
    ['http://2130706433/', 'host 127.0.0.1 is a loopback address'],
    ['http://192.168.1.10/', 'host 192.168.1.10 is a private address'],
    ['http://[fd00::1]/', 'host [fd00::1] is a unique-local address'],
    [
      'http://internal.test/hook',
      'host internal.test resolves to 10.1.2.3, which is a private address',
    ],
    [
      'http://rebind.test/hook',
      'host rebind.test resolves to 127.0.0.1, which is a loopback address',
    ],
    [
      'http://v6-local.test/hook',
      'host v6-local.test resolves to fd00::5, which is a unique-local address',
    ],
  ])('refuses %s at create and at update', async (url, reason) => {
    const message = `Invalid \`url\`: ${reason}; deliveries go to public addresses only (WEBHOOK_ALLOW_HOSTS lets a host through)`;
    expect(await expectPlainError(a.send('POST', BASE, createBody({ url })))).toBe(message);
    const created = await a.send('POST', BASE, createBody());
    const path = `${BASE}/${created.json.id}`;
    expect(await expectPlainError(a.send('PATCH', path, { url }))).toBe(message);
    expect((await a.send('GET', path)).json.url).toBe(createBody().url);
  });

  it('refuses a name the system resolves to loopback (localhost)', async () => {
    const text = await expectPlainError(
      a.send('POST', BASE, createBody({ url: 'http://localhost:3000/hook' })),
    );
    expect(text).toMatch(
      /^Invalid `url`: host localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/,
    );
  });

  it('accepts public hosts, and names that do not resolve now (checked again at delivery)', async () => {
    for (const url of [
      'https://example.com/hook',
      'http://93.184.216.34:8080/x',
      'https://nowhere.test/x',
    ]) {
      const res = await a.send('POST', BASE, createBody({ url }));
      expect(res.status, `${url}: ${res.text}`).toBe(200);
    }
  });

  it('lets WEBHOOK_ALLOW_HOSTS entries through, by host or host:port', async () => {
    const allowing = await startTestApi({
      webhooks: {
        allowHosts: ['127.0.0.1:8080', 'localhost', '[::1]', '169.254.169.254', 'internal.test'],
        resolve: resolver,
      },
    });
    try {
      const c = webhookClient(allowing, allowing.key);
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://localhost:3000/hook',
        'http://[::1]:9000/hook',
        'http://169.254.169.254/',
        'http://internal.test/hook',
      ]) {
        const res = await c.send('POST', BASE, createBody({ url }));
        expect(res.status, `${url}: ${res.text}`).toBe(200);
        expect(res.json.url).toBe(url);
      }
      for (const url of ['http://127.0.0.1:9090/hook', 'http://10.0.0.1/hook']) {
        await expectPlainError(c.send('POST', BASE, createBody({ url })));
      }
    } finally {
      await allowing.close();
    }
  });
});
