import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import * as methods from '../src/methods/index.js';
import { createNodeHmacBackend } from '../src/methods/node-hmac-backend.js';
import { createWebHmacBackend } from '../src/methods/web-hmac-backend.js';
import { independentSign } from './helpers/independent-sign.js';

const { sign, verify, verifyWithFallback, signWithBackend, verifyWithBackend } = methods;

// Published test vector of the provider's webhook documentation.
const DOC_SECRET = "It's a Secret to Everybody";
const DOC_PAYLOAD = 'Hello, World!';
const DOC_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

const secret = 'mysecret';
const payload = JSON.stringify({ foo: 'bar', emoji: '🚀', accents: 'ünïcödé' });

const nodeBackend = createNodeHmacBackend();
if (nodeBackend === undefined) throw new Error('node:crypto backend must load on Node');
const backends = [nodeBackend, createWebHmacBackend()];

describe('sign', () => {
  it('matches the documented vector', async () => {
    expect(await sign(DOC_SECRET, DOC_PAYLOAD)).toBe(DOC_SIGNATURE);
  });

  it('matches an independent HMAC for text, non-ASCII and bytes', async () => {
    expect(await sign(secret, payload)).toBe(independentSign(secret, payload));
    const bytes = new TextEncoder().encode(payload);
    expect(await sign(secret, bytes)).toBe(independentSign(secret, bytes));
    // Bytes that are not valid UTF-8 are signed as they are.
    const raw = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    expect(await sign(secret, raw)).toBe(independentSign(secret, raw));
  });

  it('is lowercase hex with the sha256= prefix', async () => {
    expect(await sign(secret, payload)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it.each([
    ['no payload', [secret, undefined], /sign\(\): payload required/],
    ['empty payload', [secret, ''], /payload required/],
    ['no secret', [undefined, payload], /sign\(\): secret required/],
    ['nothing', [undefined, undefined], /secret, payload required/],
    ['non-string payload', [secret, 42], /payload must be a string or a Uint8Array/],
    ['object payload', [secret, { a: 1 }], /payload must be a string or a Uint8Array/],
    ['non-string secret', [42, payload], /secret must be a string/],
  ])('rejects with a TypeError for %s', async (_label, args, message) => {
    const call = sign as (...a: unknown[]) => Promise<string>;
    await expect(call(...args)).rejects.toThrow(TypeError);
    await expect(call(...args)).rejects.toThrow(message);
  });
});

describe('verify', () => {
  it('accepts the documented vector and an independent signature', async () => {
    expect(await verify(DOC_SECRET, DOC_PAYLOAD, DOC_SIGNATURE)).toBe(true);
    expect(await verify(secret, payload, independentSign(secret, payload))).toBe(true);
  });

  it('verifies bytes exactly: one changed byte fails', async () => {
    const bytes = new TextEncoder().encode(payload);
    const signature = independentSign(secret, bytes);
    expect(await verify(secret, bytes, signature)).toBe(true);
    const changed = bytes.slice();
    changed[3] = (changed[3] as number) ^ 1;
    expect(await verify(secret, changed, signature)).toBe(false);
  });

  it('rejects a signature made with another secret', async () => {
    expect(await verify(secret, payload, independentSign('other', payload))).toBe(false);
  });

  const good = independentSign(secret, payload);
  it.each([
    ['sha1= prefix', `sha1=${good.slice(7, 47)}`],
    ['sha1= prefix, sha256 length', `sha1=${good.slice(7)}`],
    ['no prefix', good.slice(7)],
    ['wrong prefix', `sha512=${good.slice(7)}`],
    ['uppercase hex', `sha256=${good.slice(7).toUpperCase()}`],
    ['uppercase prefix', `SHA256=${good.slice(7)}`],
    ['too short', good.slice(0, -2)],
    ['too long', `${good}00`],
    ['non-hex', `${good.slice(0, -1)}g`],
    ['non-ASCII', `${good.slice(0, -1)}é`],
    ['whitespace', ` ${good.slice(0, -1)}`],
    ['just the prefix', 'sha256='],
  ])('returns false, without throwing, for %s', async (_label, signature) => {
    for (const backend of backends) {
      expect(await verifyWithBackend(backend, secret, payload, signature)).toBe(false);
    }
    expect(await verify(secret, payload, signature)).toBe(false);
  });

  it.each([
    ['no signature', [secret, payload, undefined], /verify\(\): signature required/],
    ['empty signature', [secret, payload, ''], /signature required/],
    ['no payload', [secret, undefined, good], /verify\(\): payload required/],
    ['no secret', [undefined, payload, good], /verify\(\): secret required/],
    ['nothing', [], /secret, payload, signature required/],
    ['non-string signature', [secret, payload, 123], /signature must be a string/],
  ])('rejects with a TypeError for %s', async (_label, args, message) => {
    const call = verify as (...a: unknown[]) => Promise<boolean>;
    await expect(call(...args)).rejects.toThrow(TypeError);
    await expect(call(...args)).rejects.toThrow(message);
  });
});

describe('verifyWithFallback', () => {
  it('tries the secret, then each additional secret in order', async () => {
    const signature = independentSign('old', payload);
    expect(await verifyWithFallback('new', payload, signature, ['older', 'old'])).toBe(true);
    expect(await verifyWithFallback('new', payload, signature, ['older'])).toBe(false);
    expect(await verifyWithFallback('new', payload, signature)).toBe(false);
    expect(await verifyWithFallback('old', payload, signature, [])).toBe(true);
  });

  it('returns false for malformed signatures and throws for missing arguments', async () => {
    expect(await verifyWithFallback('new', payload, 'sha1=abc', ['old'])).toBe(false);
    const call = verifyWithFallback as (...a: unknown[]) => Promise<boolean>;
    await expect(call('new', payload, undefined, ['old'])).rejects.toThrow(TypeError);
  });
});

describe('backends', () => {
  it('node:crypto and crypto.subtle give identical signatures', async () => {
    const samples = [payload, 'x', 'ünïcödé🚀'.repeat(1000), new Uint8Array([0, 255, 1])];
    for (const sample of samples) {
      const expected = independentSign(secret, sample);
      for (const backend of backends) {
        expect(await signWithBackend(backend, secret, sample)).toBe(expected);
        expect(await verifyWithBackend(backend, secret, sample, expected)).toBe(true);
      }
    }
  });

  it('the default backend on Node is node:crypto', async () => {
    const { getDefaultHmacBackend } = await import('../src/methods/default-hmac-backend.js');
    expect(getDefaultHmacBackend().name).toBe('node');
  });

  it('picks crypto.subtle on a runtime without process.getBuiltinModule', async () => {
    // A fresh process, so removing the Node hook cannot affect other tests.
    const script = `
      delete process.getBuiltinModule;
      const { getDefaultHmacBackend } = await import('./src/methods/default-hmac-backend.ts');
      const { sign, verify } = await import('./src/methods/index.ts');
      const signature = await sign('k', 'payload');
      console.log(JSON.stringify([getDefaultHmacBackend().name, signature, await verify('k', 'payload', signature)]));
    `;
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd },
    );
    expect(JSON.parse(stdout)).toEqual(['web', independentSign('k', 'payload'), true]);
  });

  it('falls back to nothing when node:crypto is unavailable', () => {
    expect(createNodeHmacBackend(null)).toBeUndefined();
  });

  it('the Web backend imports each secret key once and reuses it', async () => {
    const subtle = globalThis.crypto.subtle;
    const importKey = vi.spyOn(subtle, 'importKey');
    try {
      const backend = createWebHmacBackend(subtle);
      await Promise.all([
        signWithBackend(backend, 'a', payload),
        signWithBackend(backend, 'a', payload),
        verifyWithBackend(backend, 'a', payload, independentSign('a', payload)),
      ]);
      await signWithBackend(backend, 'b', payload);
      await signWithBackend(backend, 'a', payload);
      expect(importKey).toHaveBeenCalledTimes(2);
    } finally {
      importKey.mockRestore();
    }
  });

  it('the Web backend does not cache a failed key import', async () => {
    let calls = 0;
    const flaky = {
      importKey: (...args: Parameters<SubtleCrypto['importKey']>) => {
        calls++;
        if (calls === 1) return Promise.reject(new Error('transient'));
        return globalThis.crypto.subtle.importKey(...args);
      },
      sign: globalThis.crypto.subtle.sign.bind(globalThis.crypto.subtle),
    } as unknown as SubtleCrypto;
    const backend = createWebHmacBackend(flaky);
    await expect(signWithBackend(backend, 'k', payload)).rejects.toThrow('transient');
    expect(await signWithBackend(backend, 'k', payload)).toBe(independentSign('k', payload));
  });
});
