import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../src/devnet/prng.js';
import { startTestApi, type TestApi } from './support/api-harness.js';
import {
  addr,
  insertActivity,
  insertErc20Balances,
  insertNftHoldings,
  txHash,
} from './support/seed-store.js';

/**
 * Property test over the parameter space: random mixes of valid values, near-misses and garbage
 * for every parameter of every endpoint. Whatever the input, the answer is a 200 or a 400 whose
 * message names a parameter of the request; never a 500 or a hang.
 */

const wallet = addr('fuzz-wallet');
const token = addr('fuzz-token');
const garbage = [
  '',
  ' ',
  ',',
  ',,',
  '-1',
  '0',
  '1.0',
  '1e3',
  '0x',
  '0x0',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  'false',
  '[]',
  '{}',
  '%',
  '%00',
  '%FF',
  '%E2%82%AC',
  '\u0000',
  '\u202e',
  'é',
  '😀',
  "'",
  '"',
  '\\',
  '<script>',
  '../../etc/passwd',
  "1' or '1'='1",
  '1;drop table activity',
  '9'.repeat(400),
  'a'.repeat(5000),
  '1,2,3,4,5',
  '１２３',
  '0b101',
  '0o7',
  '  42  ',
  '42,',
  ',42',
  '+5',
  '5-',
  '00000000000000000000000001',
  '1'.repeat(40),
  '0x'.padEnd(42, 'g'),
  `0x${'f'.repeat(40)}`,
  `0X${'F'.repeat(40)}`,
  `0x${'a'.repeat(39)}`,
  `0x${'a'.repeat(41)}`,
];

function randomString(rand: () => number): string {
  const length = Math.floor(rand() * 30);
  let out = '';
  for (let i = 0; i < length; i++) out += String.fromCharCode(Math.floor(rand() * 0x3000));
  return out;
}

type Spec = Record<string, readonly string[]>;
const endpoints: { name: string; path: (rand: () => number) => string; params: Spec }[] = [
  {
    name: 'activity',
    path: (r) => `/v1/evm/activity/${pickAddress(r)}`,
    params: {
      chain_ids: ['1', '8453', 'default', 'mainnet', '1,8453', '1,9999', 'ethereum', 'devnet'],
      limit: ['1', '20', '100', '101', '100000'],
      offset: [],
      token_address: [token, `${token},${addr('x')}`],
      activity_type: ['send', 'receive,send', 'call', 'swap,approve,mint,burn,transfer'],
      asset_type: ['native', 'erc20,erc721', 'erc1155'],
    },
  },
  {
    name: 'balances',
    path: (r) => `/v1/evm/balances/${pickAddress(r)}`,
    params: {
      chain_ids: ['1', 'default', '1,8453,31337', '77777777777'],
      filters: ['erc20', 'native'],
      asset_class: ['stablecoin'],
      metadata: ['logo', 'url,pools', 'logo,url,pools'],
      exclude_spam_tokens: ['true', 'false'],
      exclude_unpriced: ['true', 'false'],
      historical_prices: ['1', '24,168', '720,168,24'],
      offset: [],
      limit: ['1', '1000', '1001'],
    },
  },
  {
    name: 'token-balance',
    path: (r) =>
      `/v1/evm/balances/${pickAddress(r)}/token/${r() < 0.3 ? 'native' : pickAddress(r)}`,
    params: {
      chain_ids: ['1', '8453', 'devnet', '31337'],
      metadata: ['logo', 'pools'],
      historical_prices: ['1', '1,2,3'],
    },
  },
  {
    name: 'collectibles',
    path: (r) => `/v1/evm/collectibles/${pickAddress(r)}`,
    params: {
      chain_ids: ['1', 'default', '31337'],
      offset: [],
      limit: ['1', '250', '2500', '9999'],
      filter_spam: ['true', 'false'],
      show_spam_scores: ['true', 'false'],
    },
  },
  {
    name: 'defi-positions',
    // A wallet holding nothing here (the harness has no node to read positions from).
    path: (r) =>
      `/v1/evm/defi/positions/${r() < 0.6 ? addr('fuzz-empty') : pickAddress(r).replace(wallet, addr('fuzz-empty'))}`,
    params: { chain_ids: ['1', '8453', 'default', 'mainnet', '1,8453', '1,9999', 'ethereum'] },
  },
  {
    name: 'defi-supported-protocols',
    path: () => '/v1/evm/defi/supported-protocols',
    params: {
      include_preview_chains: ['true', 'false', '1', '0'],
      include_preview_protocols: ['true', 'false'],
    },
  },
];

function pickAddress(rand: () => number): string {
  const roll = rand();
  if (roll < 0.6) return wallet;
  if (roll < 0.8) return encodeURIComponent(garbage[Math.floor(rand() * garbage.length)]!) || 'x';
  return encodeURIComponent(randomString(rand)) || 'x';
}

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
  const db = api.t.db;
  await insertActivity(
    db,
    Array.from({ length: 60 }, (_, i) => ({
      chainId: i % 2 ? 1 : 8453,
      wallet,
      blockTime: 1_700_000_000 + i,
      blockNumber: 100 + i,
      txIndex: 0,
      logIndex: i,
      txHash: txHash(i),
      type: 'receive',
      assetType: 'erc20',
      tokenAddress: token,
      from: addr('f'),
      to: wallet,
      value: String(i),
    })),
  );
  await insertErc20Balances(db, [{ chainId: 1, wallet, token, amount: '5' }]);
  await insertNftHoldings(db, [
    {
      chainId: 1,
      wallet,
      contract: token,
      tokenId: '1',
      standard: 'erc721',
      balance: '1',
      lastAcquired: 1_700_000_000,
    },
  ]);
});

afterAll(async () => {
  await api?.close();
});

describe('parameter fuzzing', () => {
  for (const [index, endpoint] of endpoints.entries()) {
    it(`${endpoint.name}: 300 random requests answer 200 or a 400 naming a parameter`, async () => {
      const rand = prng(0xc0ffee + index);
      const names = Object.keys(endpoint.params);
      const cursors: string[] = [];
      const counts = { 200: 0, 400: 0 };
      for (let i = 0; i < 300; i++) {
        const search = new URLSearchParams();
        // Each request corrupts its parameters with its own probability, so clean requests,
        // single faults and heavy garbage all occur.
        const corrupt = [0, 0.15, 0.6][Math.floor(rand() * 3)]!;
        for (const name of names) {
          if (rand() < 0.45) continue;
          const valid = name === 'offset' ? cursors : endpoint.params[name]!;
          let value: string;
          if (rand() >= corrupt && valid.length > 0)
            value = valid[Math.floor(rand() * valid.length)]!;
          else if (rand() < 0.6) value = garbage[Math.floor(rand() * garbage.length)]!;
          else value = randomString(rand);
          search.append(name, value);
          if (rand() < 0.05) search.append(name, value); // repeated parameter
        }
        if (rand() < 0.1) search.append(randomString(rand) || 'extra', randomString(rand));
        const url = `${corrupt === 0 ? endpoint.path(() => 0) : endpoint.path(rand)}?${search.toString()}`;
        const res = await api.get(url);
        const text = await res.text();
        expect(
          [200, 400],
          `${res.status} for ${url.slice(0, 300)}: ${text.slice(0, 200)}`,
        ).toContain(res.status);
        counts[res.status as 200 | 400]++;
        if (res.status === 400) {
          const message =
            endpoint.name === 'activity'
              ? text
              : (JSON.parse(text) as Record<string, string>)[
                  ['collectibles', 'defi-positions', 'defi-supported-protocols'].includes(
                    endpoint.name,
                  )
                    ? 'error'
                    : 'message'
                ];
          expect(message, url.slice(0, 300)).toMatch(
            /^Invalid parameter '(address|token_address|chain_ids|limit|offset|activity_type|asset_type|filters|asset_class|metadata|exclude_spam_tokens|exclude_unpriced|historical_prices|filter_spam|show_spam_scores|include_preview_chains|include_preview_protocols)'/,
          );
        } else {
          const next = (JSON.parse(text) as { next_offset?: string }).next_offset;
          if (next) cursors.push(next);
        }
      }
      // The generator must reach both outcomes, or it is not exploring the space.
      expect(counts[200]).toBeGreaterThan(20);
      expect(counts[400]).toBeGreaterThan(20);
    });
  }
});
