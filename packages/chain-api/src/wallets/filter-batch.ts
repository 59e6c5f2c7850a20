import type { DerivedBatch } from '../derive/index.js';

export interface FilterOptions {
  /** Keep pool events (the head follower: pricing needs every pool); a backfill drops them. */
  pools: boolean;
  /**
   * Pool bootstrap (pool-bootstrap.ts): addresses whose ERC20 balance changes are kept too, with
   * no other row: v3 pools, whose held tokens pricing reads.
   */
  holders?: (wallet: string) => boolean;
}

/**
 * The part of a derived batch that concerns the wallets `keep` accepts: their activity rows,
 * balance deltas, NFT moves and sales, the transactions they sent or received (with those
 * transactions' logs), and the tokens and NFTs those rows name. Blocks are always kept (reorg
 * detection, transaction times). Rows are the same objects, so what is kept is exactly what
 * full mode derives for these wallets.
 *
 * @example
 * const mine = filterBatch(batch, (w) => tracked.has(w), { pools: true });
 */
export function filterBatch(
  batch: DerivedBatch,
  keep: (wallet: string) => boolean,
  opts: FilterOptions,
): DerivedBatch {
  const activity = batch.activity.filter((r) => keep(r.wallet));
  const txs = batch.txs.filter((t) => keep(t.from) || (t.to !== null && keep(t.to)));
  const txKeys = new Set(txs.map((t) => `${t.blockNumber}|${t.txIndex}`));
  const logs = batch.logs.filter((l) => txKeys.has(`${l.blockNumber}|${l.txIndex}`));
  const holders = opts.holders;
  const erc20Deltas = new Map(
    [...batch.erc20Deltas].filter(([, d]) => keep(d.wallet) || holders?.(d.wallet) === true),
  );
  const nft1155 = new Map([...batch.nft1155].filter(([, d]) => keep(d.wallet)));
  // ERC721 moves are absolute (final owner): keep every id a kept wallet sent or received; an
  // owner outside the set becomes "no tracked owner" so the tracked sender's holding is removed.
  const touched721 = new Set(
    batch.activity
      .filter(
        (r) =>
          r.assetType === 'erc721' &&
          r.tokenId !== null &&
          r.type !== 'approve' &&
          ((r.from !== null && keep(r.from)) || (r.to !== null && keep(r.to))),
      )
      .map((r) => `${r.tokenAddress}|${r.tokenId}`),
  );
  const nft721 = new Map(
    [...batch.nft721]
      .filter(([k]) => touched721.has(k))
      .map(([k, m]) => [k, m.owner !== null && !keep(m.owner) ? { ...m, owner: null } : m]),
  );
  const sales = batch.sales.filter((s) => keep(s.seller) || keep(s.buyer));
  const wrapperMoves = batch.wrapperMoves.filter((m) => keep(m.wallet));
  const poolEvents = opts.pools ? batch.poolEvents : [];

  const tokenSet = new Set<string>();
  for (const r of activity) {
    if (r.tokenAddress) tokenSet.add(r.tokenAddress);
    if (r.type === 'swap' && r.extra) {
      for (const f of ['from_token_address', 'to_token_address']) {
        const a = r.extra[f];
        if (typeof a === 'string' && a !== 'native') tokenSet.add(a);
      }
    }
  }
  for (const d of erc20Deltas.values()) tokenSet.add(d.token);
  for (const d of nft1155.values()) tokenSet.add(d.contract);
  for (const m of nft721.values()) tokenSet.add(m.contract);
  for (const m of wrapperMoves) tokenSet.add(m.token);
  for (const p of poolEvents) {
    if (p.kind === 'created') {
      tokenSet.add(p.token0);
      tokenSet.add(p.token1);
    }
  }
  const tokens = new Map([...batch.tokens].filter(([a]) => tokenSet.has(a)));
  const nftKeys = new Set<string>([...nft721.keys(), ...[...nft1155.values()].map(nftKey)]);
  for (const r of activity) {
    if (r.tokenId !== null && (r.assetType === 'erc721' || r.assetType === 'erc1155'))
      nftKeys.add(`${r.tokenAddress}|${r.tokenId}`);
  }
  const nfts = new Map([...batch.nfts].filter(([k]) => nftKeys.has(k)));
  return {
    ...batch,
    txs,
    logs,
    activity,
    erc20Deltas,
    nativeTouched: new Set([...batch.nativeTouched].filter(keep)),
    nft721,
    nft1155,
    tokens,
    nfts,
    poolEvents,
    sales,
    wrapperMoves,
  };
}

function nftKey(d: { contract: string; tokenId: bigint }): string {
  return `${d.contract}|${d.tokenId}`;
}
