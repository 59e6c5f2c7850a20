import { describe, expect, it } from 'vitest';
import { defaultPoolSize } from './database-pool-config.js';
import { ConfigError, loadConfig } from './index.js';

describe('DATABASE_READ_URL', () => {
  const primary = 'postgres://app:secret@primary:5432/chain';

  it('takes one or more standbys, comma-separated, blanks ignored', () => {
    const config = loadConfig({
      DATABASE_URL: primary,
      DATABASE_READ_URL: ' postgres://r1/chain , ,postgresql://u:p@r2:5433/chain',
    });
    expect(config.databaseReadUrls).toEqual([
      'postgres://r1/chain',
      'postgresql://u:p@r2:5433/chain',
    ]);
    expect(config.readMaxWaitMs).toBe(100);
    expect(loadConfig({ DATABASE_URL: primary }).databaseReadUrls).toEqual([]);
  });

  it('rejects entries that are not PostgreSQL URLs, naming the entry but not its secrets', () => {
    const bad = () =>
      loadConfig({
        DATABASE_URL: primary,
        DATABASE_READ_URL: 'postgres://r1/chain,mysql://user:hunter2@r2/chain',
      });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/DATABASE_READ_URL entry 2 must start with postgres:\/\//);
    expect(bad).not.toThrow(/hunter2/);
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'not a url' })).toThrow(
      /DATABASE_READ_URL entry 1 is not a URL/,
    );
  });

  it('needs the primary, and a sane wait', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://r1/chain' })).toThrow(
      /DATABASE_READ_URL needs DATABASE_URL/,
    );
    expect(
      loadConfig({ DATABASE_URL: primary, DATABASE_READ_MAX_WAIT_MS: '0' }).readMaxWaitMs,
    ).toBe(0);
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_MAX_WAIT_MS: '-1' })).toThrow(
      /DATABASE_READ_MAX_WAIT_MS must be an integer from 0 to 10000/,
    );
  });
});

describe('response cache configuration', () => {
  it('invalidates scoped by default, globally on request, and names a bad value', () => {
    expect(loadConfig({}).responseCache.invalidation).toBe('scoped');
    expect(loadConfig({ RESPONSE_CACHE_INVALIDATION: ' Global ' }).responseCache.invalidation).toBe(
      'global',
    );
    expect(() => loadConfig({ RESPONSE_CACHE_INVALIDATION: 'sometimes' })).toThrow(ConfigError);
    expect(() => loadConfig({ RESPONSE_CACHE_INVALIDATION: 'sometimes' })).toThrow(
      /RESPONSE_CACHE_INVALIDATION must be "scoped" or "global", got "sometimes"/,
    );
  });

  it('keeps an entry up to 10 min without a change naming it unless told otherwise', () => {
    expect(loadConfig({}).responseCache.maxAgeMs).toBe(600_000);
    expect(loadConfig({ RESPONSE_CACHE_MAX_AGE_S: '30' }).responseCache.maxAgeMs).toBe(30_000);
  });

  it('fences reads automatically by default, on or off on request, and names a bad value', () => {
    expect(loadConfig({}).readFence).toBe('auto');
    expect(loadConfig({ READ_FENCE: ' ON ' }).readFence).toBe('on');
    expect(loadConfig({ READ_FENCE: 'off' }).readFence).toBe('off');
    expect(() => loadConfig({ READ_FENCE: 'yes' })).toThrow(
      /READ_FENCE must be "auto", "on" or "off", got "yes"/,
    );
  });
});

describe('every variable', () => {
  // Each bad value is refused with a ConfigError whose message starts with the variable's name.
  const bad: [string, string][] = [
    ['PORT', '70000'],
    ['PORT', 'http'],
    ['DATABASE_URL', 'mysql://db/chain'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_READ_MAX_WAIT_MS', '-1'],
    ['DB_STATEMENT_TIMEOUT_MS', 'soon'],
    ['DB_POOL_SIZE', '0'],
    ['DB_CONNECT_TIMEOUT_MS', '-5'],
    ['READ_FENCE', 'yes'],
    ['REDIS_URL', 'http://cache:6379'],
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_WINDOW_MS', '10'],
    ['CURSOR_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'maybe'],
    ['KEY_CACHE_TTL_MS', 'a while'],
    ['RESPONSE_CACHE_MB', '-1'],
    ['RESPONSE_CACHE_MAX_AGE_S', '0'],
    ['RESPONSE_CACHE_INVALIDATION', 'sometimes'],
    ['WALLETS_MAX', '0'],
    ['WALLET_BACKFILL_CONCURRENCY', 'lots'],
    ['WALLET_BACKFILL_RPC_PER_SECOND', '0'],
    ['WALLET_BACKFILL_WAIT_MS', '-1'],
    ['NFT_ALLOW_PRIVATE_HOSTS', 'sometimes'],
    ['NFT_CONCURRENCY', '0'],
    ['NFT_PER_HOST_CONCURRENCY', '1000'],
    ['NFT_URI_RECHECK_MS', '10'],
    ['NFT_FETCH_TIMEOUT_MS', '1'],
    ['NFT_MAX_BYTES', '1'],
    ['NFT_SPAM_THRESHOLD', '101'],
    ['NFT_SPAM_DENYLIST', 'not-an-address'],
    ['NFT_SPAM_DENYLIST_FILE', '/nonexistent/denylist.txt'],
    ['NFT_SPAM_OVERRIDES', '0x0000000000000000000000000000000000000001=maybe'],
    ['PRICING_MIN_LIQUIDITY_USD', '-1'],
    ['LOW_LIQUIDITY_USD', 'lots'],
  ];

  it.each(bad)('refuses %s=%s naming the variable', (name, value) => {
    const load = () => loadConfig({ [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`^${name}\\b`));
    try {
      load();
    } catch (error) {
      expect((error as ConfigError).source).toBe(name);
    }
  });

  it('reads every section with its defaults', () => {
    const config = loadConfig({
      RPC_URL_1: 'http://eth:8545',
      CHAINS_FILE: 'chains.json',
      HOME: '/root',
    });
    expect(config.chainEnv).toEqual({ RPC_URL_1: 'http://eth:8545', CHAINS_FILE: 'chains.json' });
    expect(config.database).toEqual({
      statementTimeoutMs: 5_000,
      connectTimeoutMs: 5_000,
      poolSize: defaultPoolSize(),
    });
    expect(config.wallets).toEqual({
      maxWallets: 100_000,
      maxPerKey: 10_000,
      concurrency: 4,
      rpcPerSecond: 500,
      waitMs: 10_000,
    });
    expect(config.pricing).toEqual({ minLiquidityUsd: 1_000, lowLiquidityUsd: 10_000 });
    expect(config.nft).toEqual({});
    expect(config.hostSet).toBe(false);
    expect(config.ci).toBe(false);
    expect(loadConfig({ HOST: '::1', CI: 'true' })).toMatchObject({
      host: '::1',
      hostSet: true,
      ci: true,
    });
  });
});

describe('DEFER_INDEXES_MIN_BLOCKS', () => {
  it('defers from 1,000 blocks by default, 0 turns it off, and names a bad value', () => {
    expect(loadConfig({}).deferIndexesMinBlocks).toBe(1_000);
    expect(loadConfig({ DEFER_INDEXES_MIN_BLOCKS: '0' }).deferIndexesMinBlocks).toBe(0);
    expect(loadConfig({ DEFER_INDEXES_MIN_BLOCKS: '50000' }).deferIndexesMinBlocks).toBe(50_000);
    expect(() => loadConfig({ DEFER_INDEXES_MIN_BLOCKS: '-1' })).toThrow(
      /DEFER_INDEXES_MIN_BLOCKS must be an integer/,
    );
  });
});

describe('defaultPoolSize', () => {
  it('four connections per core and two more, between 6 and 20', () => {
    expect([1, 2, 4, 8, 16].map((cores) => defaultPoolSize(cores))).toEqual([6, 10, 18, 20, 20]);
  });

  it('DB_POOL_SIZE overrides it', () => {
    expect(loadConfig({ DB_POOL_SIZE: '32' }).database.poolSize).toBe(32);
  });
});
