import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSignature, checkSignatureWithFallback } from './check-signature.js';
import { createNodeHmacBackend } from './node-hmac-backend.js';
import { createWebHmacBackend } from './web-hmac-backend.js';

const payload = '{"zen":"Keep it logically awesome."}';
const signed = (secret: string) =>
  `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`;
const node = createNodeHmacBackend();
if (node === undefined) throw new Error('node:crypto backend expected on Node');
const web = createWebHmacBackend();

describe('checkSignature', () => {
  it('answers synchronously on node:crypto and with a promise on Web Crypto', async () => {
    expect(checkSignature(node, 'old', payload, signed('old'))).toBe(true);
    expect(checkSignature(node, 'new', payload, signed('old'))).toBe(false);
    const pending = checkSignature(web, 'old', payload, signed('old'));
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe(true);
    expect(await checkSignature(web, 'new', payload, signed('old'))).toBe(false);
  });

  it('rejects a malformed signature before any HMAC work, on either backend', () => {
    expect(checkSignature(web, 'old', payload, `sha1=${'a'.repeat(40)}`)).toBe(false);
    expect(checkSignature(node, 'old', payload, signed('old').toUpperCase())).toBe(false);
  });

  it('throws a TypeError for a missing argument', () => {
    expect(() => checkSignature(node, '', payload, signed('old'))).toThrow(TypeError);
    expect(() => checkSignature(node, 'old', '', signed('old'))).toThrow(TypeError);
  });
});

describe('checkSignatureWithFallback', () => {
  it.each([
    ['node:crypto', node],
    ['Web Crypto', web],
  ])('tries the secret, then each additional secret in order (%s)', async (_label, backend) => {
    const signature = signed('old');
    expect(await checkSignatureWithFallback(backend, 'new', payload, signature, ['x', 'old'])).toBe(
      true,
    );
    expect(await checkSignatureWithFallback(backend, 'new', payload, signature, ['x'])).toBe(false);
    expect(await checkSignatureWithFallback(backend, 'new', payload, signature, undefined)).toBe(
      false,
    );
    expect(await checkSignatureWithFallback(backend, 'old', payload, signature, [])).toBe(true);
  });
});
