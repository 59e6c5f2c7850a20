import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainRegistry } from '../../src/api/chain-selector.js';
import { chargeComputeUnits } from '../../src/api/compute-units/charge-units.js';
import { priceOf, requestUnits } from '../../src/api/compute-units/prices.js';
import { createUsageMeter } from '../../src/keys/usage-meter.js';
import { createDbUsageStore } from '../../src/keys/usage-store.js';
import { startTestApi, type TestApi, testChains } from '../support/api-harness.js';
import { addr } from '../support/seed-store.js';

/**
 * Each request's compute units as the peer prices them: N per chain after tag expansion
 * (omitted chain_ids = the chains tagged `default`), 4N for DeFi positions, fixed prices for the
 * rest; answers of 400 and more cost nothing.
 */

const chains = testChains(); // ethereum, base (default, mainnet), devnet (default, devnet)
const registry = createChainRegistry(chains);
const units = (url: string, query: Record<string, unknown> = {}, body?: unknown) => {
  const price = priceOf(url);
  if (!price) throw new Error(`no price for ${url}`);
  return requestUnits(price, { query, body }, registry);
};

describe('requestUnits', () => {
  it('prices balances, stablecoins and collectibles per chain after tag expansion', () => {
    for (const url of [
      '/v1/evm/balances/:address',
      '/v1/evm/balances/:address/stablecoins',
      '/v1/evm/collectibles/:address',
    ]) {
      expect(units(url)).toBe(3); // omitted: every chain tagged `default`
      expect(units(url, { chain_ids: 'mainnet' })).toBe(2);
      expect(units(url, { chain_ids: 'devnet' })).toBe(1);
      expect(units(url, { chain_ids: '1' })).toBe(1);
      expect(units(url, { chain_ids: '1,1,8453' })).toBe(2); // duplicates count once
      expect(units(url, { chain_ids: 'mainnet,1' })).toBe(2);
      expect(units(url, { chain_ids: '1,999999' })).toBe(1); // unsupported ids are not processed
      expect(units(url, { chain_ids: '999999' })).toBe(0);
      expect(units(url, { chain_ids: 'default,testnet' })).toBe(3);
    }
  });

  it('prices DeFi positions at 4 per chain, portfolio likewise', () => {
    expect(units('/v1/evm/defi/positions/:address')).toBe(12);
    expect(units('/v1/evm/defi/positions/:address', { chain_ids: 'mainnet' })).toBe(8);
    expect(units('/v1/evm/defi/positions/:address', { chain_ids: '8453' })).toBe(4);
    expect(units('/v1/evm/portfolio/:address', { chain_ids: '1' })).toBe(4);
  });

  it('prices the fixed endpoints whatever the chains and filters', () => {
    const all = { chain_ids: 'default', limit: '5', filters: 'erc20' };
    expect(units('/v1/evm/balances/:address/token/:token_address', { chain_ids: '1' })).toBe(1);
    expect(units('/v1/evm/activity/:address')).toBe(3);
    expect(units('/v1/evm/activity/:address', all)).toBe(3);
    expect(units('/v1/evm/transactions/:address', all)).toBe(1);
    expect(units('/v1/evm/token-info/:address', { chain_ids: '1' })).toBe(2);
    expect(units('/v1/evm/token-holders/:chain_id/:address')).toBe(2);
    expect(units('/v1/evm/search/tokens', all)).toBe(2);
    expect(units('/v1/evm/supported-chains')).toBe(0);
    expect(units('/v1/evm/defi/supported-protocols')).toBe(0);
  });

  it('prices wallet tracking per distinct address and subscription management at 0', () => {
    const a = addr('cu-a');
    const b = addr('cu-b');
    expect(units('/v1/evm/wallets/track', {}, { addresses: [a, b, a.toUpperCase()] })).toBe(2);
    expect(units('/v1/evm/wallets/track', {}, { addresses: 'nope' })).toBe(0);
    expect(units('/v1/evm/wallets/track', {}, null)).toBe(0);
    expect(priceOf('/beta/evm/subscriptions/webhooks')).toEqual({ kind: 'fixed', units: 0 });
    expect(priceOf('/beta/evm/subscriptions/webhooks/:webhookId/addresses')).toEqual({
      kind: 'fixed',
      units: 0,
    });
    expect(priceOf('/beta/evm/subscriptionsx')).toBeUndefined();
    expect(priceOf('/v1/evm/new-endpoint/:address')).toBeUndefined();
  });

  it('prices parameters the route rejects at 0 (the 400 costs nothing)', () => {
    const url = '/v1/evm/balances/:address';
    expect(units(url, { chain_ids: 'ethereum' })).toBe(0); // names are a 400
    expect(units(url, { chain_ids: '1,,2' })).toBe(0);
    expect(units(url, { chain_ids: ['1', '8453'] })).toBe(0); // given twice is a 400
    expect(units(url, { chain_ids: 'nosuchtag' })).toBe(0);
  });
});

describe('compute units of served requests', () => {
  let api: TestApi;
  const wallet = addr('cu-wallet');

  beforeAll(async () => {
    api = await startTestApi({ computeUnits: { meter: { idleMs: 50, flushMs: 50 } } });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const charged = async (path: string, headers?: Record<string, string>) => {
    const res = await api.get(path, headers);
    await res.arrayBuffer();
    return { status: res.status, units: res.headers.get('x-compute-units') };
  };

  it('charges each keyed request its price and says so in X-Compute-Units', async () => {
    expect(await charged(`/v1/evm/balances/${wallet}`)).toEqual({ status: 200, units: '3' });
    expect(await charged(`/v1/evm/balances/${wallet}?chain_ids=mainnet`)).toEqual({
      status: 200,
      units: '2',
    });
    expect(await charged(`/v1/evm/collectibles/${wallet}?chain_ids=1`)).toEqual({
      status: 200,
      units: '1',
    });
    expect(await charged(`/v1/evm/activity/${wallet}?chain_ids=mainnet`)).toEqual({
      status: 200,
      units: '3',
    });
    expect(await charged(`/v1/evm/transactions/${wallet}`)).toEqual({ status: 200, units: '1' });
    // Public and free: no key, no charge.
    expect(await charged('/v1/evm/supported-chains', {})).toEqual({ status: 200, units: null });
    // Rejected requests cost nothing and claim no price.
    expect(await charged('/v1/evm/balances/0x1234')).toEqual({ status: 400, units: null });
    expect(await charged(`/v1/evm/balances/${wallet}?chain_ids=ethereum`)).toEqual({
      status: 400,
      units: null,
    });
    expect((await charged(`/v1/evm/balances/${wallet}`, { 'x-sim-api-key': 'nope' })).status).toBe(
      401,
    );

    // 3 + 2 + 1 + 3 + 1 = 10 units, counted once the meter gives its idle lease back.
    const { rows: keyRows } = await api.t.db.query<{ id: string }>(
      `select id from api_keys where name = 'test'`,
    );
    const keyId = keyRows[0]!.id;
    const used = async () => {
      const { rows } = await api.t.db.query<{ compute_units: string }>(
        `select compute_units from api_key_usage where key_id = $1 and period = 'month'`,
        [keyId],
      );
      return Number(rows[0]?.compute_units ?? -1);
    };
    await expect.poll(used, { timeout: 20_000, interval: 50 }).toBe(10);
  }, 60_000);

  it('refuses to start with a keyed route that has no price', async () => {
    const meter = createUsageMeter(createDbUsageStore(api.serverDb));
    const build = async (paths: string[]) => {
      const app = Fastify();
      await app.register(
        async (scope) => {
          chargeComputeUnits(scope, { meter, registry });
          for (const path of paths) scope.get(path, async () => ({}));
        },
        { prefix: '/v1/evm' },
      );
      await app.ready();
      await app.close();
    };
    await build(['/transactions/:address', '/search/tokens']);
    await expect(build(['/transactions/:address', '/unpriced/:address'])).rejects.toThrow(
      /GET \/v1\/evm\/unpriced\/:address has no compute-unit price/,
    );
    await meter.close();
  });
});
