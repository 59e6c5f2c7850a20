import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../../src/api/subscriptions/delivery-url-policy.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import type { TestApi } from '../support/api-harness.js';

export const BASE = '/beta/evm/subscriptions/webhooks';

/** What a test sees of an answer: status, content type, the text and (when JSON) the value. */
export interface Answer {
  status: number;
  contentType: string;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are inspected field by field
  json: any;
  headers: Headers;
}

/** A client of the Subscriptions API with one API key, as the peer's guides call it. */
export interface WebhookClient {
  key: string;
  send(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  /** Sends `raw` as the body, unchanged. */
  sendRaw(method: string, path: string, raw: string, contentType?: string): Promise<Answer>;
}

export function webhookClient(api: TestApi, key: string): WebhookClient {
  const request = async (method: string, path: string, init: RequestInit): Promise<Answer> => {
    const res = await fetch(`${api.url}${path}`, { method, ...init });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let json: unknown;
    if (contentType.startsWith('application/json') && text !== '') json = JSON.parse(text);
    return { status: res.status, contentType, text, json, headers: res.headers };
  };
  return {
    key,
    send(method, path, body, headers = {}) {
      return request(method, path, {
        headers: {
          'x-sim-api-key': key,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    },
    sendRaw(method, path, raw, contentType = 'application/json') {
      return request(method, path, {
        headers: { 'x-sim-api-key': key, 'content-type': contentType },
        body: raw,
      });
    },
  };
}

/** A second API key on the same store (another owner). */
export async function otherKey(api: TestApi, name = 'other'): Promise<string> {
  return (await createKeyStore(api.t.db).create({ name })).key;
}

/** Distinct lower-case addresses, deterministic. */
export function addresses(count: number, seed = 0): string[] {
  return Array.from(
    { length: count },
    (_, i) => `0x${(seed * 1_000_000 + i + 1).toString(16).padStart(40, '0')}`,
  );
}

/**
 * Host names of the tests without the network: `localhost` through the system resolver (its
 * hosts file), the names of `table` (null: the name does not resolve), and every other name at
 * a public address.
 */
export function testResolver(table: Record<string, string[] | null> = {}): HostResolver {
  return async (host): Promise<LookupAddress[]> => {
    if (host === 'localhost') return lookup(host, { all: true });
    const found = table[host];
    if (found === null)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    if (found) return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    return [{ address: '93.184.216.34', family: 4 }];
  };
}

/** A valid create body. */
export function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'USDC Balance Monitor',
    url: 'https://example.com/webhooks/usdc-balances',
    type: 'balances',
    addresses: ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'],
    chain_ids: [1, 8453],
    asset_type: 'erc20',
    token_address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    ...overrides,
  };
}
