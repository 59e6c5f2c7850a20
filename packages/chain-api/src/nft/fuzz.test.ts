import { describe, expect, it } from 'vitest';
import { attributeSales, type SaleTxInput } from '../derive/nft-sales.js';
import { prng } from '../devnet/prng.js';
import { NftError } from './errors.js';
import { normalizeGateways } from './gateways.js';
import { normalizeMetadata } from './normalize-metadata.js';
import { resolveUri } from './resolve-uri.js';

const rng = prng;

const gw = normalizeGateways();
const keys = [
  'name',
  'description',
  'image',
  'image_url',
  'attributes',
  'traits',
  'properties',
  'trait_type',
  'value',
  'key',
  'display_type',
  'image_data',
  'x',
];

function randomJson(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * (depth > 3 ? 5 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return r() < 0.5 ? Math.floor(r() * 1e6) : r() * 1e300 * (r() < 0.5 ? -1 : 1);
    case 3:
      return [
        '',
        'ipfs://',
        'data:,',
        '\u0000',
        'javascript:x',
        'https://a.example/x',
        'Qm',
        '{id}',
        '%zz',
      ][Math.floor(r() * 9)];
    case 4:
      return String.fromCharCode(
        ...Array.from({ length: Math.floor(r() * 20) }, () => Math.floor(r() * 0xffff)),
      );
    case 5:
    case 6:
      return Object.fromEntries(
        Array.from({ length: Math.floor(r() * 6) }, () => [
          keys[Math.floor(r() * keys.length)]!,
          randomJson(r, depth + 1),
        ]),
      );
    default:
      return Array.from({ length: Math.floor(r() * 6) }, () => randomJson(r, depth + 1));
  }
}

describe('fuzz: metadata normalisation and URI resolution', () => {
  it('normalizeMetadata returns well-formed fields for any object and MetadataError otherwise', () => {
    const r = rng(7);
    for (let i = 0; i < 3_000; i++) {
      const doc = randomJson(r);
      let out: ReturnType<typeof normalizeMetadata>;
      try {
        out = normalizeMetadata(doc, gw);
      } catch (error) {
        expect(error, JSON.stringify(doc)).toBeInstanceOf(NftError);
        expect(typeof doc !== 'object' || doc === null || Array.isArray(doc)).toBe(true);
        continue;
      }
      for (const field of [out.name, out.description, out.imageUrl, out.externalUrl]) {
        expect(field === null || (typeof field === 'string' && !field.includes('\u0000'))).toBe(
          true,
        );
      }
      for (const attribute of out.attributes) {
        expect(typeof attribute.key).toBe('string');
        expect(typeof attribute.value).toBe('string');
      }
      if (out.imageUrl !== null) expect(out.imageUrl).toMatch(/^(https?:|data:)/);
    }
  });

  it('resolveUri only ever throws UriError, and URLs it returns are http(s)', () => {
    const r = rng(11);
    const alphabet = 'abcdefipsnrt:/%{}#?.=;,0123456789QmXYZ-_ \n';
    const prefixes = [
      '',
      'ipfs://',
      'ar://',
      'data:',
      'data:application/json;base64,',
      'http://',
      'https://',
      '/ipfs/',
      'ipns://',
    ];
    for (let i = 0; i < 5_000; i++) {
      const body = Array.from(
        { length: Math.floor(r() * 40) },
        () => alphabet[Math.floor(r() * alphabet.length)],
      ).join('');
      const uri = prefixes[Math.floor(r() * prefixes.length)] + body;
      try {
        const source = resolveUri(uri, gw);
        if (source.kind === 'url') expect(source.url, uri).toMatch(/^https?:\/\//);
        else expect(typeof source.text).toBe('string');
      } catch (error) {
        expect(error, uri).toBeInstanceOf(NftError);
      }
    }
  });
});

describe('fuzz: sales attribution invariants', () => {
  const parties = Array.from({ length: 5 }, (_, i) => `0x${String(i + 1).repeat(40)}`);
  const weth = `0x${'a'.repeat(40)}`;
  const junk = `0x${'b'.repeat(40)}`;

  function randomTx(r: () => number, paid: boolean): SaleTxInput {
    const who = () => parties[Math.floor(r() * parties.length)]!;
    const nftTransfers = Array.from({ length: 1 + Math.floor(r() * 4) }, (_, i) => ({
      logIndex: i,
      contract: `0x${'c'.repeat(40)}`,
      tokenId: BigInt(Math.floor(r() * 5)),
      from: r() < 0.15 ? `0x${'0'.repeat(40)}` : who(),
      to: who(),
      quantity: BigInt(1 + Math.floor(r() * 3)),
    }));
    const amount = () => BigInt(Math.floor(r() * 1e6));
    return {
      chainId: 1,
      blockNumber: 1n,
      blockTime: new Date(0),
      txHash: '0x01',
      from: who(),
      to: who(),
      value: paid && r() < 0.5 ? amount() : 0n,
      nftTransfers,
      erc20Transfers: paid
        ? Array.from({ length: Math.floor(r() * 3) }, (_, i) => ({
            logIndex: 10 + i,
            token: r() < 0.5 ? weth : junk,
            from: who(),
            to: who(),
            value: amount(),
          }))
        : [{ logIndex: 10, token: junk, from: who(), to: who(), value: amount() }],
      internalTransfers: paid
        ? Array.from({ length: Math.floor(r() * 3) }, () => ({
            from: who(),
            to: who(),
            value: amount(),
          }))
        : [],
    };
  }

  it('no payment in a payment currency means no sale', () => {
    const r = rng(3);
    for (let i = 0; i < 2_000; i++) {
      const tx = randomTx(r, false);
      expect(attributeSales({ ...tx, to: null }, [weth])).toEqual([]);
    }
  });

  it('every sale moves an NFT between two parties and its seller was paid in its currency', () => {
    const r = rng(5);
    let sales = 0;
    for (let i = 0; i < 3_000; i++) {
      const tx = randomTx(r, true);
      for (const sale of attributeSales(tx, [weth])) {
        sales++;
        expect(sale.seller).not.toBe(sale.buyer);
        expect(sale.seller).not.toBe(`0x${'0'.repeat(40)}`);
        expect(sale.price).toBeGreaterThanOrEqual(0n);
        const paidToSeller =
          sale.paymentToken === 'native'
            ? (tx.to === sale.seller && tx.from !== sale.seller && tx.value > 0n) ||
              (tx.internalTransfers ?? []).some(
                (t) => t.to === sale.seller && t.from !== sale.seller && t.value > 0n,
              )
            : tx.erc20Transfers.some(
                (t) =>
                  t.token === sale.paymentToken &&
                  t.to === sale.seller &&
                  t.from !== sale.seller &&
                  t.value > 0n,
              );
        expect(
          paidToSeller,
          JSON.stringify(tx, (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
        ).toBe(true);
      }
    }
    expect(sales).toBeGreaterThan(100);
  });
});
