import type { DecodedEvent, RawLog } from './decoded-event.js';
import { TOPIC } from './event-signatures.js';

const ADDRESS_WORD = /^0{24}[0-9a-f]{40}$/;

/**
 * Decodes a `Transfer(address,address,uint256)` whose arguments are all in data (one topic,
 * CryptoKitties-style) as an ERC721 transfer, but only for contracts `isErc721` vouches for (an
 * ERC20 may emit the same shape). Returns null for anything else.
 *
 * @example
 * decodeUnindexedTransfer(log, (a) => a === kitties) // { kind: 'erc721_transfer', ... }
 */
export function decodeUnindexedTransfer(
  log: RawLog,
  isErc721: (address: string) => boolean,
): Extract<DecodedEvent, { kind: 'erc721_transfer' }> | null {
  const { topics, data, address } = log;
  if (topics.length !== 1 || topics[0] !== TOPIC.transfer || data.length !== 2 + 64 * 3) {
    return null;
  }
  if (!isErc721(address)) return null;
  const hex = data.slice(2).toLowerCase();
  const from = hex.slice(0, 64);
  const to = hex.slice(64, 128);
  if (!ADDRESS_WORD.test(from) || !ADDRESS_WORD.test(to)) return null;
  return {
    kind: 'erc721_transfer',
    address,
    from: `0x${from.slice(24)}`,
    to: `0x${to.slice(24)}`,
    tokenId: BigInt(`0x${hex.slice(128)}`),
  };
}
