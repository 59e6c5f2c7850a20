import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataError, NftError } from './errors.js';
import { normalizeGateways } from './gateways.js';
import { loadMetadata } from './load-metadata.js';
import { createSafeFetcher } from './safe-fetch.js';

let server: http.Server;
let origin: string;
const cid = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const send = (type: string | undefined, body: string) => {
      if (type) res.setHeader('content-type', type);
      res.end(body);
    };
    switch (req.url) {
      case `/ipfs/${cid}/1`:
        return send('application/json', `{"name":"via gateway","image":"ipfs://${cid}/1.png"}`);
      case '/ar/tx1/meta.json':
        return send('text/plain; charset=utf-8', '{"name":"via arweave"}');
      case '/untyped':
        return send(undefined, '{"name":"no content type"}');
      case '/html':
        return send('text/html', '<html><script>alert(1)</script></html>');
      case '/html-json':
        return send('text/html', '{"name":"mislabelled"}');
      case '/image':
        return send('image/svg+xml', '<svg/>');
      case '/broken':
        return send('application/json', '{"name": }');
      case '/array':
        return send('application/json', '[1,2]');
      default:
        res.statusCode = 404;
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('loadMetadata', () => {
  const fetcher = createSafeFetcher({ allowPrivateHosts: true, timeoutMs: 2_000 });
  const gateways = () => normalizeGateways({ ipfsGateway: origin, arweaveGateway: `${origin}/ar` });
  afterAll(() => fetcher.close());

  it('refuses an inline document over maxBytes as TOO_LARGE, before or after decoding', async () => {
    const deps = { fetcher, gateways: normalizeGateways({}), maxBytes: 1_024 };
    const doc = (n: number) => `data:application/json,{"name":"${'a'.repeat(n)}"}`;
    expect((await loadMetadata(doc(900), deps)).name).toHaveLength(900);
    for (const uri of [
      doc(2_000),
      doc(10_000),
      `data:application/json;base64,${'e'.repeat(4_000)}`,
    ]) {
      const error = await loadMetadata(uri, deps).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NftError);
      expect((error as NftError).code).toBe('TOO_LARGE');
    }
  });

  it('loads ipfs:// and ar:// documents through the configured gateways', async () => {
    const meta = await loadMetadata(`ipfs://${cid}/1`, { fetcher, gateways: gateways() });
    expect(meta).toMatchObject({ name: 'via gateway', imageUrl: `${origin}/ipfs/${cid}/1.png` });
    expect((await loadMetadata('ar://tx1/meta.json', { fetcher, gateways: gateways() })).name).toBe(
      'via arweave',
    );
  });

  it('accepts JSON without or with a wrong content type, refuses HTML pages', async () => {
    expect((await loadMetadata(`${origin}/untyped`, { fetcher, gateways: gateways() })).name).toBe(
      'no content type',
    );
    expect(
      (await loadMetadata(`${origin}/html-json`, { fetcher, gateways: gateways() })).name,
    ).toBe('mislabelled');
    await expect(loadMetadata(`${origin}/html`, { fetcher, gateways: gateways() })).rejects.toThrow(
      /HTML page/,
    );
  });

  it('a URI pointing at an image gives image-only metadata', async () => {
    expect(await loadMetadata(`${origin}/image`, { fetcher, gateways: gateways() })).toEqual({
      name: null,
      description: null,
      imageUrl: `${origin}/image`,
      attributes: [],
      externalUrl: null,
    });
    const svg = 'data:image/svg+xml;base64,PHN2Zy8+';
    expect((await loadMetadata(svg, { fetcher, gateways: gateways() })).imageUrl).toBe(svg);
  });

  it('records broken JSON, non-object documents, 404s and unsupported data: types', async () => {
    const codes: string[] = [];
    for (const uri of [
      `${origin}/broken`,
      `${origin}/array`,
      `${origin}/missing`,
      'data:text/html,<b>x</b>',
      'data:application/json,{oops',
    ]) {
      try {
        await loadMetadata(uri, { fetcher, gateways: gateways() });
        codes.push('none');
      } catch (error) {
        codes.push(error instanceof NftError ? error.code : 'other');
      }
    }
    expect(codes).toEqual([
      'INVALID_JSON',
      'INVALID_METADATA',
      'HTTP_STATUS',
      'UNSUPPORTED_URI',
      'INVALID_JSON',
    ]);
    await expect(
      loadMetadata(`${origin}/broken`, { fetcher, gateways: gateways() }),
    ).rejects.toBeInstanceOf(MetadataError);
  });
});
