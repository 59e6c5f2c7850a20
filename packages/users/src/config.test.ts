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

  it('allows the listen address and localhost names as Host by default, plus ALLOWED_HOSTS', () => {
    expect(loadConfig({}).allowedHosts).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(loadConfig({ HOST: 'users.internal' }).allowedHosts).toContain('users.internal');
    expect(loadConfig({ HOST: '[::1]' }).allowedHosts).toEqual(['localhost', '127.0.0.1', '::1']);
    // A wildcard listen address means every local address.
    expect(loadConfig({ HOST: '0.0.0.0' }).allowedHosts).toEqual(
      expect.arrayContaining(['localhost', '127.0.0.1']),
    );
    expect(loadConfig({ ALLOWED_HOSTS: 'Users.Example.com, [fd00::1]' }).allowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '::1',
      'users.example.com',
      'fd00::1',
    ]);
    expect(loadConfig({ ALLOWED_HOSTS: '*' }).allowedHosts).toBe('*');
  });

  it('reads trusted origins', () => {
    expect(loadConfig({}).allowedOrigins).toEqual([]);
    expect(
      loadConfig({ ALLOWED_ORIGINS: 'https://Admin.example.com, http://localhost:8080/' })
        .allowedOrigins,
    ).toEqual(['https://admin.example.com', 'http://localhost:8080']);
  });

  it.each([
    [{ ALLOWED_HOSTS: 'example.com:3000' }, /ALLOWED_HOSTS.*without a port/],
    [{ ALLOWED_HOSTS: 'http://example.com' }, /ALLOWED_HOSTS/],
    [{ ALLOWED_ORIGINS: 'admin.example.com' }, /ALLOWED_ORIGINS/],
    [{ ALLOWED_ORIGINS: 'https://admin.example.com/path' }, /ALLOWED_ORIGINS/],
    [{ ALLOWED_ORIGINS: 'ftp://admin.example.com' }, /ALLOWED_ORIGINS/],
    [{ HEALTH_TIMEOUT_MS: '10' }, /HEALTH_TIMEOUT_MS/],
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
