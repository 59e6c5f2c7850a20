import { describe, expect, it } from 'vitest';
import { createDeliveryUrlPolicy, type HostResolver } from './delivery-url-policy.js';

const failing: HostResolver = async (host) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

describe('delivery URL policy', () => {
  it('lets a name through when the resolver does not answer in time (checked again at delivery)', async () => {
    const check = createDeliveryUrlPolicy({
      resolve: () => new Promise(() => {}),
      resolveTimeoutMs: 50,
    });
    const started = Date.now();
    expect(await check('https://slow.example/hook')).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses localhost names even when nothing resolves them', async () => {
    const check = createDeliveryUrlPolicy({ resolve: failing });
    expect(await check('http://api.localhost/hook')).toMatch(/^host api\.localhost is a loopback/);
    expect(await check('http://localhost./hook')).toMatch(/is a loopback address/);
    expect(await check('http://unknown.example/hook')).toBeUndefined();
  });

  it('never resolves IP literals and matches allowed hosts by host or host:port', async () => {
    let asked = 0;
    const check = createDeliveryUrlPolicy({
      allowHosts: ['10.0.0.7:8443', 'Hooks.Local'],
      resolve: async () => {
        asked++;
        return [{ address: '10.9.9.9', family: 4 }];
      },
    });
    expect(await check('https://10.0.0.7:8443/x')).toBeUndefined();
    expect(await check('https://10.0.0.7/x')).toMatch(/private address/);
    expect(await check('http://hooks.local:1234/x')).toBeUndefined();
    expect(asked).toBe(0);
    expect(await check('http://other.local/x')).toMatch(/resolves to 10\.9\.9\.9/);
    expect(asked).toBe(1);
  });
});
