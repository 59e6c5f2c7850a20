import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, type DefiDevnet, startDefiDevnet } from './support/defi-devnet.js';
import { type Fault, seededFaults, startFaultProxy } from './support/fault-proxy.js';
import {
  assertMatchesReference,
  assertMatchesReferencePath,
  referenceAvailable,
} from './support/reference-schemas.js';

/**
 * The DeFi endpoints' parameter rules, error statuses and formats, a faulty node, and
 * /defi/supported-protocols, on the devnet scenario indexed into a real PostgreSQL.
 */

let s: DefiDevnet;
beforeAll(async () => {
  s = await startDefiDevnet();
}, 240_000);
afterAll(async () => {
  await s?.close();
});

describe('GET /v1/evm/defi/positions/{address}: parameters and failures', () => {
  it('chain_ids: unsupported ids warn, tags select, names and bad syntax are 400 {error}', async () => {
    const alice = s.devnet.manifest.wallets.alice;
    const other = await s.get(`/v1/evm/defi/positions/${alice}?chain_ids=999999`);
    expect(other.res.status).toBe(200);
    if (referenceAvailable()) assertMatchesReference('DefiPositionsResponse', other.body);
    expect(other.body!.positions).toEqual([]);
    expect(other.body!.warnings[0]).toMatchObject({
      code: 'UNSUPPORTED_CHAIN_IDS',
      chain_ids: [999999],
    });
    const tagged = await s.get(`/v1/evm/defi/positions/${alice}?chain_ids=devnet`);
    expect(tagged.body!.positions).toHaveLength(3);
    for (const [path, pattern] of [
      [`${alice}?chain_ids=ethereum`, /chain_ids.*chain names are not accepted/],
      [`${alice}?chain_ids=1,,2`, /chain_ids/],
      [`${alice}?chain_ids=a$b`, /chain_ids/],
      ['0x1234', /address/],
      [`${alice}zz`, /address/],
    ] as const) {
      const { res, body } = await s.get(`/v1/evm/defi/positions/${path}`);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(body!.error).toMatch(pattern);
      if (referenceAvailable()) assertMatchesReference('Collectibles_ErrorResponse', body);
    }
  });

  it('401 without a key; 503 {error} while the index is not ready', async () => {
    const path = `/v1/evm/defi/positions/${s.devnet.manifest.wallets.alice}`;
    const res = await fetch(`${s.base}${path}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.any(String) });
    s.setReady(false);
    try {
      const notReady = await s.get(path);
      expect(notReady.res.status).toBe(503);
      expect(notReady.body!.error).toMatch(/try again later/i);
    } finally {
      s.setReady(true);
    }
  });

  it('500 {error} without the cause when the store fails', async () => {
    await s.t.db.query('alter table contract_probes rename to contract_probes_gone');
    try {
      const { res, body } = await s.get(
        `/v1/evm/defi/positions/${s.devnet.manifest.wallets.alice}`,
        {
          'cache-control': 'no-cache',
        },
      );
      expect(res.status).toBe(500);
      expect(body).toEqual({ error: 'Internal server error' });
    } finally {
      await s.t.db.query('alter table contract_probes_gone rename to contract_probes');
    }
  });

  it('a node that does not answer is a 503 naming the chain; then the rate limit is a 429', async () => {
    const url = await s.startApp({ rpcUrl: 'http://127.0.0.1:9', rateLimitMax: 2 });
    const path = `/v1/evm/defi/positions/${s.devnet.manifest.wallets.alice}`;
    const down = await s.get(path, {}, url);
    expect(down.res.status).toBe(503);
    expect(down.res.headers.get('retry-after')).toBe('5');
    expect(down.body!.error).toMatch(/node of devnet \(31337\) could not be read/);
    // A wallet holding nothing needs no node.
    const empty = await s.get(
      '/v1/evm/defi/positions/0x000000000000000000000000000000000000dead',
      {},
      url,
    );
    expect(empty.res.status).toBe(200);
    const limited = await s.get(path, {}, url);
    expect(limited.res.status).toBe(429);
    expect(limited.body!.error).toMatch(/too many requests/i);
  });

  it('through a faulty node: the exact answer, an answer that says what is missing, or a 503', async () => {
    const path = `/v1/evm/defi/positions/${s.devnet.manifest.wallets.alice}`;
    const clean = (await s.get(path, { 'cache-control': 'no-cache' })).body!;
    // Forget every probe answer, so probing itself runs through the faults.
    await s.t.db.query(`delete from contract_probes where probe = 'defi'`);
    const faults: Fault[] = ['status500', 'garbage', 'truncate', 'drop', 'partial', 'rpcError'];
    faults.push('serverError', 'status429', 'timeout');
    const proxy = await startFaultProxy(s.devnet.rpcUrl, seededFaults(7, 0.35, faults));
    try {
      const url = await s.startApp({ rpcUrl: proxy.url, timeoutMs: 300 });
      const seen = new Set<number>();
      for (let i = 0; i < 16; i++) {
        const { res, body } = await s.get(path, { 'cache-control': 'no-cache' }, url);
        seen.add(res.status);
        if (res.status === 503) {
          expect(body!.error).toMatch(/node of devnet/);
        } else {
          expect(res.status).toBe(200);
          if (body!.warnings) {
            expect(body!.warnings.map((w: Body) => w.code)).toEqual(['POSITIONS_INCOMPLETE']);
            for (const p of body!.positions) expect(clean.positions).toContainEqual(p);
          } else {
            expect(body).toEqual(clean);
          }
        }
      }
      expect(proxy.stats.faults.pass).toBeGreaterThan(0);
      expect(proxy.stats.requests - proxy.stats.faults.pass!).toBeGreaterThan(0);
      // No fault left a wrong "not a position" behind.
      proxy.setPolicy(() => 'pass');
      expect((await s.get(path, { 'cache-control': 'no-cache' }, url)).body).toEqual(clean);
      expect(seen.has(500)).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});

describe('GET /v1/evm/defi/supported-protocols', () => {
  it('the three families on the served chain, as the peer shapes them', async () => {
    const { res, body } = await s.get('/v1/evm/defi/supported-protocols');
    expect(res.status).toBe(200);
    if (referenceAvailable()) {
      assertMatchesReferencePath('/v1/evm/defi/supported-protocols', '200', body);
    }
    const chains = [{ chain_id: 31337, chain_name: s.devnet.chain.name, status: 'stable' }];
    expect(body!.protocol_families).toEqual([
      {
        family: 'uniswap_v2',
        chains,
        sub_protocols: ['UniswapV2', 'SushiSwapV2', 'PancakeSwapV2'],
      },
      {
        family: 'uniswap_v3',
        chains,
        sub_protocols: ['UniswapV3', 'PancakeSwapV3', 'SushiSwapV3'],
      },
      { family: 'erc4626', chains, sub_protocols: [] },
    ]);
    const flags = await s.get(
      '/v1/evm/defi/supported-protocols?include_preview_chains=true&include_preview_protocols=1',
    );
    expect(flags.body).toEqual(body);
  });

  it('400 {error} for a bad flag, 401 without a key', async () => {
    const bad = await s.get('/v1/evm/defi/supported-protocols?include_preview_chains=maybe');
    expect(bad.res.status).toBe(400);
    expect(bad.body!.error).toMatch(/include_preview_chains/);
    const res = await fetch(`${s.base}/v1/evm/defi/supported-protocols`);
    expect(res.status).toBe(401);
  });
});
