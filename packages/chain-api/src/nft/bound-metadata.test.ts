import { describe, expect, it } from 'vitest';
import { boundMetadata, servedTokenUri, storedTokenUri } from './bound-metadata.js';
import type { NormalizedMetadata } from './normalize-metadata.js';

const base: NormalizedMetadata = {
  name: 'A',
  description: null,
  imageUrl: null,
  attributes: [],
  externalUrl: null,
};
const stored = (m: NormalizedMetadata) =>
  Buffer.byteLength(
    (m.name ?? '') + (m.description ?? '') + (m.imageUrl ?? '') + JSON.stringify(m.attributes),
  );

describe('boundMetadata', () => {
  it('leaves a normal document alone', () => {
    const meta = { ...base, description: 'd', attributes: [{ key: 'k', value: 'v' }] };
    expect(boundMetadata(meta)).toEqual({ meta, limited: null });
  });

  it('drops attributes from the end beyond 256 KiB and says how many it kept', () => {
    // 500 attributes of 1,000 four-byte code points: about 4 MB.
    const value = '😀'.repeat(1_000);
    const attributes = Array.from({ length: 500 }, (_, i) => ({ key: `k${i}`, value }));
    const { meta, limited } = boundMetadata({
      ...base,
      attributes,
      description: 'x'.repeat(20_000),
    });
    expect(stored(meta)).toBeLessThanOrEqual(256 * 1024);
    expect(meta.attributes.length).toBeGreaterThan(0);
    expect(meta.attributes).toEqual(attributes.slice(0, meta.attributes.length));
    expect(meta.description).toBe('x'.repeat(20_000));
    expect(limited).toBe(
      `attributes: kept ${meta.attributes.length} of 500 (document over 262144 bytes)`,
    );
  });

  it('cuts a description by bytes without splitting a character', () => {
    const { meta, limited } = boundMetadata({ ...base, description: 'é😀'.repeat(100_000) }, 1_000);
    expect(Buffer.byteLength(meta.description ?? '')).toBeLessThanOrEqual(999);
    expect(meta.description).not.toContain('\uFFFD');
    expect(meta.description?.endsWith('😀') || meta.description?.endsWith('é')).toBe(true);
    expect(limited).toMatch(/^description: cut to \d+ bytes$/);
  });

  it('drops an inline image over 64 Ki characters and any other image URL over 8 Ki', () => {
    const inline = `data:image/svg+xml;utf8,${'a'.repeat(70_000)}`;
    expect(boundMetadata({ ...base, imageUrl: inline })).toEqual({
      meta: base,
      limited: `image_url: inline data: image of ${inline.length} characters dropped (limit 65536)`,
    });
    const url = `https://example.com/${'a'.repeat(9_000)}`;
    expect(boundMetadata({ ...base, imageUrl: url }).meta.imageUrl).toBeNull();
    const ok = `data:image/png;base64,${'A'.repeat(1_000)}`;
    expect(boundMetadata({ ...base, imageUrl: ok }).meta.imageUrl).toBe(ok);
  });
});

describe('storedTokenUri / servedTokenUri', () => {
  it('keeps short URIs, stores a long data: URI as its digest, and never serves either long form', () => {
    expect(storedTokenUri('ipfs://Qm/1')).toBe('ipfs://Qm/1');
    expect(servedTokenUri('ipfs://Qm/1')).toBe('ipfs://Qm/1');
    const small = 'data:application/json,{"name":"A"}';
    expect(storedTokenUri(small)).toBe(small);
    expect(servedTokenUri(small)).toBe(small);
    const long = `data:application/json,{"name":"${'a'.repeat(10_000)}"}`;
    const digest = storedTokenUri(long);
    expect(digest).toMatch(/^data:application\/json;sha256=[0-9a-f]{64},$/);
    expect(storedTokenUri(`${long} `)).not.toBe(digest);
    expect(storedTokenUri(long)).toBe(digest);
    expect(servedTokenUri(digest)).toBeNull();
    expect(servedTokenUri(long)).toBeNull();
    expect(servedTokenUri(null)).toBeNull();
    // Base64 and parameters: the media type is the part before the first ';' or ','.
    expect(storedTokenUri(`data:Application/JSON;base64,${'e'.repeat(9_000)}`)).toMatch(
      /^data:application\/json;sha256=/,
    );
  });
});
