import { describe, expect, it } from 'vitest';
import { MetadataError } from './errors.js';
import { normalizeGateways } from './gateways.js';
import { metadataLimits, normalizeMetadata, parseMetadataJson } from './normalize-metadata.js';

const gw = normalizeGateways({ ipfsGateway: 'https://gw.example' });
const cid = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';

describe('normalizeMetadata', () => {
  it('reads the standard fields and resolves the image through the gateway', () => {
    const out = normalizeMetadata(
      {
        name: 'Ape #1',
        description: 'An ape',
        image: `ipfs://${cid}/1.png`,
        external_url: 'https://apes.example/1',
        attributes: [
          { trait_type: 'Fur', value: 'Gold' },
          { trait_type: 'Level', value: 5, display_type: 'number' },
          { trait_type: 'Legendary', value: true },
          { trait_type: 'Born', value: 1_546_360_800, display_type: 'date' },
        ],
      },
      gw,
    );
    expect(out).toEqual({
      name: 'Ape #1',
      description: 'An ape',
      imageUrl: `https://gw.example/ipfs/${cid}/1.png`,
      externalUrl: 'https://apes.example/1',
      attributes: [
        { key: 'Fur', value: 'Gold' },
        { key: 'Level', value: '5', format: 'number' },
        { key: 'Legendary', value: 'true' },
        { key: 'Born', value: '1546360800', format: 'date' },
      ],
    });
  });

  it('tolerates odd shapes', () => {
    const out = normalizeMetadata(
      {
        name: 42,
        description: ['not', 'text'],
        image_url: 'https://img.example/x.png',
        traits: [
          'Loose string',
          { key: 'Kind', value: 'Cat' },
          { name: 'Mood', value: 'Calm' },
          { value: 'No key' },
          { trait_type: 'Nested', value: { a: 1 } },
          { trait_type: 'Null', value: null },
          null,
          7,
          { trait_type: 'Empty', value: '' },
        ],
      },
      gw,
    );
    expect(out.name).toBe('42');
    expect(out.description).toBeNull();
    expect(out.imageUrl).toBe('https://img.example/x.png');
    expect(out.attributes).toEqual([
      { key: 'property', value: 'Loose string' },
      { key: 'Kind', value: 'Cat' },
      { key: 'Mood', value: 'Calm' },
      { key: 'property', value: 'No key' },
      { key: 'Nested', value: '{"a":1}' },
      { key: 'Empty', value: '' },
    ]);
  });

  it('reads a properties map (ERC1155 style) and image_data SVG', () => {
    const out = normalizeMetadata(
      {
        name: 'Sword',
        properties: { rarity: 'epic', power: 9, meta: { value: 'boxed', display_value: 'Boxed' } },
        image_data: '<svg xmlns="http://www.w3.org/2000/svg"/>',
      },
      gw,
    );
    expect(out.attributes).toEqual([
      { key: 'rarity', value: 'epic' },
      { key: 'power', value: '9' },
      { key: 'meta', value: 'boxed' },
    ]);
    expect(out.imageUrl).toMatch(/^data:image\/svg\+xml;utf8,%3Csvg/);
  });

  it('skips unusable images and falls back to animation_url', () => {
    expect(normalizeMetadata({ image: 'javascript:alert(1)' }, gw).imageUrl).toBeNull();
    expect(normalizeMetadata({ image: '', animation_url: `ipfs://${cid}` }, gw).imageUrl).toBe(
      `https://gw.example/ipfs/${cid}`,
    );
  });

  it('caps sizes and strips NUL bytes', () => {
    const out = normalizeMetadata(
      {
        name: `a\u0000b${'x'.repeat(5_000)}`,
        attributes: Array.from({ length: 2_000 }, (_, i) => ({ trait_type: `t${i}`, value: i })),
      },
      gw,
    );
    expect(out.name?.startsWith('ab')).toBe(true);
    expect(out.name?.length).toBe(metadataLimits.name);
    expect(out.attributes).toHaveLength(metadataLimits.attributes);
  });

  it('limits count code points: emoji are kept whole at every cap', () => {
    const out = normalizeMetadata(
      {
        name: '🐸'.repeat(metadataLimits.name + 5),
        description: `${'d'.repeat(metadataLimits.description - 1)}😀😀`,
        attributes: [{ trait_type: 'Mood', value: `${'v'.repeat(999)}👨‍👩‍👧` }],
      },
      gw,
    );
    expect(out.name).toBe('🐸'.repeat(metadataLimits.name)); // 2,000 UTF-16 units
    expect(out.description).toBe(`${'d'.repeat(metadataLimits.description - 1)}😀`);
    expect(out.attributes[0]?.value).toBe('v'.repeat(999)); // the ZWJ family goes whole
  });

  it('replaces lone surrogates from JSON escapes everywhere they can land', () => {
    const doc = parseMetadataJson(
      '{"name":"Frog \\ud83d","description":"\\ude00 pond","image_data":"<svg>\\ud83d</svg>",' +
        '"attributes":[{"trait_type":"K\\ud83d","value":"V\\ude00","display_type":"\\ud800"}],' +
        '"properties_unused":1}',
    );
    const out = normalizeMetadata(doc, gw);
    expect(out.name).toBe('Frog \uFFFD');
    expect(out.description).toBe('\uFFFD pond');
    expect(out.imageUrl).toBe(`data:image/svg+xml;utf8,${encodeURIComponent('<svg>\uFFFD</svg>')}`);
    expect(out.attributes).toEqual([{ key: 'K\uFFFD', value: 'V\uFFFD', format: '\uFFFD' }]);
    const map = normalizeMetadata(JSON.parse('{"properties":{"\\ud83d":"x\\ud83d"}}'), gw);
    expect(map.attributes).toEqual([{ key: '\uFFFD', value: 'x\uFFFD' }]);
  });

  it.each([null, 'text', 7, [1, 2], true])('rejects a non-object document %j', (doc) => {
    expect(() => normalizeMetadata(doc, gw)).toThrow(MetadataError);
  });
});

describe('parseMetadataJson', () => {
  it('parses JSON with a BOM', () => {
    expect(parseMetadataJson('\uFEFF{"name":"x"}')).toEqual({ name: 'x' });
  });
  it('records broken JSON as INVALID_JSON', () => {
    try {
      parseMetadataJson('{"name": ');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MetadataError);
      expect((error as MetadataError).code).toBe('INVALID_JSON');
    }
  });
});
