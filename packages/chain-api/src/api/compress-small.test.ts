import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import compress from '@fastify/compress';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedEncoding, compressSmallAnswers } from './compress-small.js';

describe('acceptedEncoding', () => {
  it('picks the highest q, br before gzip before deflate on ties, never q=0', () => {
    expect(acceptedEncoding('gzip, deflate, br')).toBe('br');
    expect(acceptedEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(acceptedEncoding('br;q=0, gzip;q=0.1')).toBe('gzip');
    expect(acceptedEncoding('deflate')).toBe('deflate');
    expect(acceptedEncoding('*')).toBe('br');
    expect(acceptedEncoding('identity')).toBeUndefined();
    expect(acceptedEncoding('zstd, compress')).toBeUndefined();
    expect(acceptedEncoding('br;q=abc')).toBeUndefined();
    expect(acceptedEncoding(undefined)).toBeUndefined();
  });
});

describe('compressSmallAnswers', () => {
  const app = Fastify();
  const small = JSON.stringify({ pad: 'x'.repeat(100) });
  const medium = JSON.stringify({
    items: Array.from({ length: 200 }, (_, i) => ({ i, v: 'abc' })),
  });
  const large = JSON.stringify({ pad: 'y'.repeat(200_000) });
  beforeAll(async () => {
    compressSmallAnswers(app, { threshold: 1024, maxBytes: 64 * 1024, brotliQuality: 4 });
    await app.register(compress, { global: true, threshold: 1024 });
    app.get('/small', async (_req, reply) => reply.type('application/json').send(small));
    app.get('/medium', async (_req, reply) => reply.type('application/json').send(medium));
    app.get('/large', async (_req, reply) => reply.type('application/json').send(large));
    app.get('/png', async (_req, reply) => reply.type('image/png').send(Buffer.alloc(4096)));
    await app.ready();
  });
  afterAll(() => app.close());

  const get = (url: string, enc?: string) =>
    app.inject({ url, headers: enc ? { 'accept-encoding': enc } : {} });

  it('compresses a medium JSON answer in place (its length known), in the negotiated encoding, byte-exact', async () => {
    for (const [enc, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
      ['deflate', inflateSync],
    ] as const) {
      const res = await get('/medium', enc);
      expect(res.headers['content-encoding']).toBe(enc);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.rawPayload.length).toBeLessThan(medium.length);
      // The plugin streams (chunked, no length): a length means it was compressed here.
      expect(res.headers['content-length']).toBe(String(res.rawPayload.length));
      expect(decode(res.rawPayload).toString()).toBe(medium);
    }
  });

  it('leaves small, unrequested and non-text answers alone', async () => {
    expect((await get('/small', 'br')).headers['content-encoding']).toBeUndefined();
    expect((await get('/medium')).headers['content-encoding']).toBeUndefined();
    expect((await get('/medium', 'identity')).body).toBe(medium);
    expect((await get('/png', 'gzip')).headers['content-encoding']).toBeUndefined();
  });

  it('lets large answers stream through the plugin, still compressed', async () => {
    const res = await get('/large', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.rawPayload).toString()).toBe(large);
  });
});
