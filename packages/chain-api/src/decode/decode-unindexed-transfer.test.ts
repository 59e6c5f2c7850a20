import { describe, expect, it } from 'vitest';
import { decodeUnindexedTransfer } from './decode-unindexed-transfer.js';
import { TOPIC } from './event-signatures.js';

const KITTY = '0x06012c8cf97bead5deae237070f9587f8e7a266d';
const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
const from = '0x1111111111111111111111111111111111111111';
const to = '0x2222222222222222222222222222222222222222';
const log = (data: string, topics: string[] = [TOPIC.transfer]) =>
  ({ address: KITTY, topics, data, logIndex: 0, txIndex: 0 }) as const;
const yes = () => true;

describe('decodeUnindexedTransfer', () => {
  it('decodes from, to and the token id from data for a verified ERC721', () => {
    const data = `0x${word(from)}${word(to)}${word('0x2a')}`;
    expect(decodeUnindexedTransfer(log(data), yes)).toEqual({
      kind: 'erc721_transfer',
      address: KITTY,
      from,
      to,
      tokenId: 42n,
    });
  });

  it('stays undecoded for other contracts and malformed logs', () => {
    const data = `0x${word(from)}${word(to)}${word('0x2a')}`;
    expect(decodeUnindexedTransfer(log(data), () => false)).toBeNull();
    expect(decodeUnindexedTransfer(log(`${data}00`), yes)).toBeNull(); // 97 bytes
    expect(decodeUnindexedTransfer(log(data.slice(0, -64)), yes)).toBeNull(); // 64 bytes
    expect(decodeUnindexedTransfer(log(data, [TOPIC.transfer, word(from)]), yes)).toBeNull();
    const dirty = `0x${'f'.repeat(64)}${word(to)}${word('0x2a')}`; // not an address word
    expect(decodeUnindexedTransfer(log(dirty), yes)).toBeNull();
  });
});
