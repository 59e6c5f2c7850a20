import type { DerivedBatch } from '../derive/index.js';
import { StoreChangeBuilder } from './changes/store-change-builder.js';

/**
 * Every wallet and token whose answers the batch can change: activity rows, balances, holdings
 * and both sides of its transactions, NFT holdings apart (NFT metadata and sales notify through their own triggers;
 * an ERC721's previous owner comes back from the holdings write).
 *
 * @example
 * const change = batchChange(1, batch, input);
 * await publishStoreChange(tx, change);
 */
export function batchChange(
  chain: number,
  batch: DerivedBatch,
  input: { nativeBalances: ReadonlyMap<string, bigint>; newTokens: readonly { address: string }[] },
): StoreChangeBuilder {
  const change = new StoreChangeBuilder();
  // Only holdings writes (and NFT activity, to be safe) name a wallet's NFT holdings: an ERC20
  // or native transfer leaves its cached collectibles alone. Balances are named per token: the
  // balance writes below are every balance the batch moves (a row's own token is named too, to
  // be safe), so a wallet's single-token answers of other tokens stay.
  for (const a of batch.activity) {
    if (a.assetType === 'erc721' || a.assetType === 'erc1155') change.wallet(chain, a.wallet);
    else change.walletBalance(chain, a.wallet, a.tokenAddress ?? 'native');
    change.token(chain, a.tokenAddress);
  }
  for (const d of batch.erc20Deltas.values())
    change.walletBalance(chain, d.wallet, d.token).token(chain, d.token);
  for (const wallet of input.nativeBalances.keys()) change.walletBalance(chain, wallet, 'native');
  for (const m of batch.nft721.values()) change.wallet(chain, m.owner).token(chain, m.contract);
  for (const d of batch.nft1155.values()) change.wallet(chain, d.wallet).token(chain, d.contract);
  // Gas and value move the native balances of both sides.
  for (const t of batch.txs)
    change.walletBalance(chain, t.from, 'native').walletBalance(chain, t.to, 'native');
  for (const t of input.newTokens) change.token(chain, t.address);
  return change;
}
