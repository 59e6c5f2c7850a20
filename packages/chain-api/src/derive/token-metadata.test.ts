import { encodeAbiParameters, type Hex, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeText, tokenTextLimit } from './token-metadata.js';

const abiString = (s: string) => encodeAbiParameters([{ type: 'string' }], [s]);

describe('decodeText (token name/symbol)', () => {
  it('keeps 200 emoji (400 UTF-16 units) whole and cuts at 200 code points', () => {
    expect(decodeText(abiString('🚀'.repeat(150)))).toBe('🚀'.repeat(150));
    const cut = decodeText(abiString(`X${'🚀'.repeat(250)}`));
    expect(cut).toBe(`X${'🚀'.repeat(tokenTextLimit - 1)}`);
    expect([...(cut ?? '')].length).toBe(tokenTextLimit);
  });

  it('never ends in half an emoji or a letter without its combining mark', () => {
    // 199 ASCII then an emoji: the UTF-16 cut at 200 used to leave a lone high surrogate.
    expect(decodeText(abiString(`${'a'.repeat(199)}😀😀`))).toBe(`${'a'.repeat(199)}😀`);
    expect(decodeText(abiString(`${'a'.repeat(199)}e\u0301`))).toBe('a'.repeat(199));
  });

  it('drops invalid UTF-8 (CESU-8 encoded surrogates) and control characters', () => {
    // ED A0 BD = a UTF-16 high surrogate encoded as if it were a code point: not UTF-8.
    const bytes =
      `0x${Buffer.from('Coin ', 'utf8').toString('hex')}eda0bd${'00'.repeat(24)}` as Hex;
    expect(decodeText(bytes)).toBe('Coin');
    expect(decodeText(abiString('Tab\tCoin\u0000'))).toBe('TabCoin');
    expect(decodeText(stringToHex('MKR', { size: 32 }))).toBe('MKR');
  });
});
