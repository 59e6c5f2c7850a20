import { nft1155Delta } from './batch-deltas.js';
import { ZERO_ADDRESS } from './derive-context.js';
import { type EventOf, movement, seenToken, type TxScope } from './tx-scope.js';

/** Rows, owner and sale input of an ERC721 Transfer. */
export function erc721Transfer(s: TxScope, ev: EventOf<'erc721_transfer'>, logIndex: number): void {
  const { out, blockNumber, time } = s;
  seenToken(out, ev.address, 'erc721', blockNumber);
  movement(s, ev.from, ev.to, 'erc721', logIndex, 0, {
    tokenAddress: ev.address,
    value: 1n,
    tokenId: ev.tokenId,
  });
  const key = `${ev.address}|${ev.tokenId}`;
  out.nft721.set(key, {
    contract: ev.address,
    tokenId: ev.tokenId,
    owner: ev.to === ZERO_ADDRESS ? null : ev.to,
    time,
    block: blockNumber,
  });
  out.nfts.set(key, { contract: ev.address, tokenId: ev.tokenId, standard: 'erc721' });
  s.nftTransfers.push({
    logIndex,
    contract: ev.address,
    tokenId: ev.tokenId,
    from: ev.from,
    to: ev.to,
    quantity: 1n,
  });
}

/** Rows, holding deltas and sale inputs of an ERC1155 TransferSingle or TransferBatch. */
export function erc1155Transfer(
  s: TxScope,
  ev: EventOf<'erc1155_transfer'>,
  logIndex: number,
): void {
  const { out, blockNumber, time } = s;
  seenToken(out, ev.address, 'erc1155', blockNumber);
  ev.ids.forEach((id, j) => {
    const qty = ev.values[j] ?? 0n;
    movement(s, ev.from, ev.to, 'erc1155', logIndex, j, {
      tokenAddress: ev.address,
      value: qty,
      tokenId: id,
      extra: ev.batch ? { batch: true, operator: ev.operator } : { operator: ev.operator },
    });
    nft1155Delta(out, ev.from, ev.address, id, -qty, null, blockNumber);
    nft1155Delta(out, ev.to, ev.address, id, qty, { time, block: blockNumber }, blockNumber);
    out.nfts.set(`${ev.address}|${id}`, {
      contract: ev.address,
      tokenId: id,
      standard: 'erc1155',
    });
    s.nftTransfers.push({
      logIndex,
      contract: ev.address,
      tokenId: id,
      from: ev.from,
      to: ev.to,
      quantity: qty,
    });
  });
}

/** A MetadataUpdate/BatchMetadataUpdate: the token range whose metadata is fetched again. */
export function metadataUpdate(s: TxScope, ev: EventOf<'metadata_update'>): void {
  s.out.metadataRefresh.push({
    contract: ev.address,
    fromTokenId: ev.fromTokenId,
    toTokenId: ev.toTokenId,
    block: s.blockNumber,
  });
}
