import { describe, expect, it } from 'vitest';
import { syntheticBatch } from '../../test/support/synthetic-batch.js';
import { batchChange } from './batch-change.js';
import { balancePairKey, changeKey, parseStoreChange } from './changes/store-change.js';

const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const token = wallet(0xe2c20);
const nft = wallet(0x721);
const nft1155 = wallet(0x1155);

/** The batch's change as an API process reads it (every message merged). */
function announced(batch: ReturnType<typeof syntheticBatch>) {
  const change = batchChange(1, batch.batch, {
    nativeBalances: batch.nativeBalances,
    newTokens: [],
  });
  const wallets = new Set<string>();
  const nftWallets = new Set<string>();
  const balanceWallets = new Set<string>();
  const pairs = new Set<string>();
  for (const body of change.encode()) {
    for (const c of parseStoreChange(`{"v":1,"s":"s","lsn":null,${body}}`).chains) {
      expect(c.all).toBe(false);
      for (const w of c.wallets) wallets.add(w);
      for (const w of c.nftWallets) nftWallets.add(w);
      for (const w of c.balanceWallets) balanceWallets.add(w);
      for (const p of c.balancePairs) pairs.add(p);
    }
  }
  return { wallets, nftWallets, balanceWallets, pairs };
}

describe('batchChange', () => {
  const tip = { block: 10n, hash: `0x${'0'.repeat(64)}` };
  const time = new Date('2026-11-27T00:00:00Z');

  it('names ERC20 and native movers as wallets whose NFT holdings did not change', () => {
    const batch = syntheticBatch({
      chainId: 1,
      tip,
      time,
      transfers: [
        { from: wallet(1), to: wallet(2), token, value: 5n },
        { from: wallet(3), to: wallet(4), token: null, value: 1n },
      ],
    });
    const { wallets, nftWallets, balanceWallets, pairs } = announced(batch);
    expect(wallets).toEqual(new Set([1, 2, 3, 4].map((n) => changeKey(wallet(n)))));
    expect(nftWallets.size).toBe(0);
    // Each mover's balances are named per token: the token moved, and native (gas, value).
    expect(balanceWallets.size).toBe(0);
    for (const n of [1, 2]) expect(pairs.has(balancePairKey(wallet(n), token))).toBe(true);
    for (const n of [3, 4]) expect(pairs.has(balancePairKey(wallet(n), 'native'))).toBe(true);
    expect(pairs.has(balancePairKey(wallet(3), token))).toBe(false);
  });

  it('names the owners and holders of NFT moves (and NFT activity) as holdings changes', () => {
    const batch = syntheticBatch({
      chainId: 1,
      tip,
      time,
      transfers: [{ from: wallet(1), to: wallet(2), token, value: 5n }],
    });
    batch.batch.nft721.set(`${nft}|1`, {
      contract: nft,
      tokenId: 1n,
      owner: wallet(5),
      time,
      block: 11n,
    });
    batch.batch.nft1155.set(`${wallet(6)}|${nft1155}|2`, {
      wallet: wallet(6),
      contract: nft1155,
      tokenId: 2n,
      delta: 1n,
      acquired: { time, block: 11n },
      block: 11n,
    });
    const base = batch.batch.activity[0]!;
    batch.batch.activity.push({
      ...base,
      wallet: wallet(7),
      assetType: 'erc721',
      tokenAddress: nft,
      tokenId: 3n,
    });
    const { wallets, nftWallets, balanceWallets } = announced(batch);
    expect(nftWallets).toEqual(new Set([5, 6, 7].map((n) => changeKey(wallet(n)))));
    // An NFT move: any balance of the wallet, as far as the announcement says.
    expect(balanceWallets).toEqual(nftWallets);
    for (const key of nftWallets) expect(wallets.has(key)).toBe(true);
    expect(nftWallets.has(changeKey(wallet(2)))).toBe(false);
  });
});
