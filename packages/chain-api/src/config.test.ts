import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

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

  it('fences reads automatically by default, on or off on request, and names a bad value', () => {
    expect(loadConfig({}).readFence).toBe('auto');
    expect(loadConfig({ READ_FENCE: ' ON ' }).readFence).toBe('on');
    expect(loadConfig({ READ_FENCE: 'off' }).readFence).toBe('off');
    expect(() => loadConfig({ READ_FENCE: 'yes' })).toThrow(
      /READ_FENCE must be "auto", "on" or "off", got "yes"/,
    );
  });
});
