import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has safe defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      tls: undefined,
      logLevel: 'info',
      bodyLimit: 16384,
    });
  });

  it('reads TLS only when both files are set', () => {
    expect(loadConfig({ TLS_KEY_FILE: 'k', TLS_CERT_FILE: 'c' }).tls).toEqual({
      keyFile: 'k',
      certFile: 'c',
    });
    expect(() => loadConfig({ TLS_CERT_FILE: 'c' })).toThrow(ConfigError);
    expect(() => loadConfig({ TLS_KEY_FILE: 'k' })).toThrow(/TLS_CERT_FILE is not/);
  });

  it.each([
    [{ PORT: 'http' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ BODY_LIMIT: '10' }, /BODY_LIMIT/],
    [{ BODY_TIMEOUT_MS: '5s' }, /BODY_TIMEOUT_MS/],
    [{ HTTP_REDIRECT_PORT: '80' }, /needs HTTPS/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
