import { ZERO_ADDRESS } from './derive-context.js';
import type { DerivedBatch, Nft1155Delta } from './derived-batch.js';

/**
 * Adds a movement to a (wallet, token) pair's batch delta: `in` is a receipt (its first time is
 * kept), `out` a send (even of 0), `self` a self-transfer, which is both.
 */
export function erc20Delta(
  out: DerivedBatch,
  wallet: string,
  token: string,
  delta: bigint,
  block: bigint,
  time: Date,
  role: 'in' | 'out' | 'self',
): void {
  if (wallet === ZERO_ADDRESS) return;
  const key = `${wallet}|${token}`;
  const received = role !== 'out';
  const sent = role !== 'in';
  const prev = out.erc20Deltas.get(key);
  if (prev) {
    prev.delta += delta;
    prev.block = block;
    if (received && !prev.acquired) prev.acquired = time;
    if (sent) prev.sent = true;
  } else {
    out.erc20Deltas.set(key, {
      wallet,
      token,
      delta,
      block,
      ...(received ? { acquired: time } : {}),
      sent,
    });
  }
}

/** Adds a movement to a (wallet, contract, token id) ERC1155 holding's batch delta. */
export function nft1155Delta(
  out: DerivedBatch,
  wallet: string,
  contract: string,
  tokenId: bigint,
  delta: bigint,
  acquired: Nft1155Delta['acquired'],
  block: bigint,
): void {
  if (wallet === ZERO_ADDRESS) return;
  const key = `${wallet}|${contract}|${tokenId}`;
  const prev = out.nft1155.get(key);
  if (prev) {
    prev.delta += delta;
    if (acquired && delta > 0n) prev.acquired = acquired;
    prev.block = block;
  } else {
    out.nft1155.set(key, {
      wallet,
      contract,
      tokenId,
      delta,
      acquired: delta > 0n ? acquired : null,
      block,
    });
  }
}
