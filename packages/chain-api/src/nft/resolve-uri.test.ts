import { describe, expect, it } from 'vitest';
import { dataUriText, parseDataUri } from './data-uri.js';
import { UriError } from './errors.js';
import { defaultGateways, normalizeGateways } from './gateways.js';
import { resolveUri, substituteTokenId, toHttpUrl } from './resolve-uri.js';

const gw = normalizeGateways({
  ipfsGateway: 'https://gw.example/ipfs/',
  arweaveGateway: 'https://ar.example/',
});
const cid0 = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const cid1 = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';
const arId = 'bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U';

function url(uri: string): string {
  const source = resolveUri(uri, gw);
  if (source.kind !== 'url') throw new Error(`expected a url for ${uri}`);
  return source.url;
}

function inline(uri: string): string {
  const source = resolveUri(uri, gw);
  if (source.kind !== 'inline') throw new Error(`expected inline for ${uri}`);
  return source.text;
}

describe('normalizeGateways', () => {
  it('drops trailing slashes and /ipfs', () => {
    expect(gw).toEqual({ ipfsGateway: 'https://gw.example', arweaveGateway: 'https://ar.example' });
    expect(normalizeGateways()).toEqual(defaultGateways);
  });
  it('rejects non-http gateways', () => {
    expect(() => normalizeGateways({ ipfsGateway: 'ftp://x' })).toThrow(/http/);
  });
});

describe('resolveUri: http(s)', () => {
  it('keeps https and http URLs', () => {
    expect(url('https://meta.example/token/1.json')).toBe('https://meta.example/token/1.json');
    expect(url('  http://meta.example:8080/1  ')).toBe('http://meta.example:8080/1');
  });
  it('rewrites public IPFS gateway URLs (path and subdomain) to the configured gateway', () => {
    expect(url(`https://gateway.pinata.cloud/ipfs/${cid0}/7.json`)).toBe(
      `https://gw.example/ipfs/${cid0}/7.json`,
    );
    expect(url(`https://${cid1}.ipfs.dweb.link/7.json`)).toBe(
      `https://gw.example/ipfs/${cid1}/7.json`,
    );
    expect(url(`https://gw.example/ipfs/${cid0}`)).toBe(`https://gw.example/ipfs/${cid0}`);
  });
  it('leaves /ipfs/ paths without a CID alone', () => {
    expect(url('https://site.example/ipfs/not-a-cid')).toBe('https://site.example/ipfs/not-a-cid');
  });
});

describe('resolveUri: IPFS and Arweave', () => {
  it.each([
    [`ipfs://${cid0}`, `https://gw.example/ipfs/${cid0}`],
    [`ipfs://${cid0}/1.json`, `https://gw.example/ipfs/${cid0}/1.json`],
    [`ipfs://ipfs/${cid0}/1.json`, `https://gw.example/ipfs/${cid0}/1.json`],
    [`IPFS://${cid1}/a/b.json`, `https://gw.example/ipfs/${cid1}/a/b.json`],
    [cid0, `https://gw.example/ipfs/${cid0}`],
    [`${cid1}/12`, `https://gw.example/ipfs/${cid1}/12`],
    [`/ipfs/${cid0}/3`, `https://gw.example/ipfs/${cid0}/3`],
    [`ipfs/${cid0}/3`, `https://gw.example/ipfs/${cid0}/3`],
    [
      'ipns://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8/1',
      'https://gw.example/ipns/k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8/1',
    ],
    [`ar://${arId}`, `https://ar.example/${arId}`],
    [`ar://${arId}/meta/1.json`, `https://ar.example/${arId}/meta/1.json`],
  ])('%s -> %s', (input, expected) => {
    expect(url(input)).toBe(expected);
  });
});

describe('resolveUri: data: URIs', () => {
  const doc = '{"name":"Dragon #1","description":"100% on chain, #1"}';
  it('plain JSON (with # and % that must not be mangled)', () => {
    expect(JSON.parse(inline(`data:application/json,${doc}`))).toEqual(JSON.parse(doc));
    expect(JSON.parse(inline(`data:application/json;utf8,${doc}`)).name).toBe('Dragon #1');
  });
  it('base64, with charset parameter, whitespace and url-safe alphabet', () => {
    const b64 = Buffer.from(doc).toString('base64');
    expect(inline(`data:application/json;base64,${b64}`)).toBe(doc);
    expect(
      inline(`data:application/json;charset=utf-8;base64,${b64.slice(0, 10)}\n${b64.slice(10)}`),
    ).toBe(doc);
    const unicode = '{"name":"Ünïcødé ✓ ~~??>>"}';
    expect(
      inline(`data:application/json;base64,${Buffer.from(unicode).toString('base64url')}`),
    ).toBe(unicode);
  });
  it('percent-encoded', () => {
    expect(inline(`data:application/json,${encodeURIComponent(doc)}`)).toBe(doc);
    expect(
      inline(`data:application/json;charset=utf-8,${encodeURIComponent('{"name":"Ünï"}')}`),
    ).toBe('{"name":"Ünï"}');
  });
  it('reports the media type (default text/plain)', () => {
    expect(resolveUri('data:,{}', gw)).toEqual({
      kind: 'inline',
      mediaType: 'text/plain',
      text: '{}',
    });
    expect(dataUriText('data:TEXT/JSON,{}').mediaType).toBe('text/json');
    expect(parseDataUri('data:image/svg+xml;base64,PHN2Zy8+').mediaType).toBe('image/svg+xml');
  });
  it('rejects malformed data URIs', () => {
    expect(() => resolveUri('data:application/json', gw)).toThrow(UriError);
    expect(() => resolveUri('data:application/json;base64,@@@@', gw)).toThrow(/base64/);
  });
});

describe('resolveUri: refusals', () => {
  it.each([
    '',
    '   ',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'ftp://x.example/1',
    'relative/path.json',
    'ipfs://',
    'ar://',
  ])('refuses %j', (input) => {
    expect(() => resolveUri(input, gw)).toThrow(UriError);
  });
});

describe('toHttpUrl (images)', () => {
  it('maps every form, keeps data: images and refuses the rest', () => {
    expect(toHttpUrl(`ipfs://${cid0}/img.png`, gw)).toBe(`https://gw.example/ipfs/${cid0}/img.png`);
    expect(toHttpUrl('data:image/svg+xml;base64,PHN2Zy8+', gw)).toBe(
      'data:image/svg+xml;base64,PHN2Zy8+',
    );
    expect(toHttpUrl('https://img.example/a.png', gw)).toBe('https://img.example/a.png');
    expect(toHttpUrl('javascript:alert(1)', gw)).toBeUndefined();
    expect(toHttpUrl('', gw)).toBeUndefined();
  });
});

describe('substituteTokenId (ERC1155 {id})', () => {
  it('writes 64 lower-case hex digits, zero-padded, every occurrence', () => {
    expect(substituteTokenId('https://x.example/{id}.json', 10n)).toBe(
      `https://x.example/${'0'.repeat(63)}a.json`,
    );
    expect(substituteTokenId('ipfs://Qm/{id}/{id}', 0xabcdefn)).toBe(
      `ipfs://Qm/${'0'.repeat(58)}abcdef/${'0'.repeat(58)}abcdef`,
    );
    const max = 2n ** 256n - 1n;
    expect(substituteTokenId('{id}', max)).toBe('f'.repeat(64));
    expect(substituteTokenId('https://x.example/1.json', 5n)).toBe('https://x.example/1.json');
  });
});
