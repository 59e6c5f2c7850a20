import type { DerivedBatch } from '../derive/index.js';
import { StoreChangeBuilder } from './changes/store-change.js';

/**
 * Every wallet and token whose answers the batch can change: activity rows, balances, holdings
 * and both sides of its transactions (NFT metadata and sales notify through their own triggers;
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
  for (const a of batch.activity) change.wallet(chain, a.wallet).token(chain, a.tokenAddress);
  for (const d of batch.erc20Deltas.values()) change.wallet(chain, d.wallet).token(chain, d.token);
  for (const wallet of input.nativeBalances.keys()) change.wallet(chain, wallet);
  for (const m of batch.nft721.values()) change.wallet(chain, m.owner).token(chain, m.contract);
  for (const d of batch.nft1155.values()) change.wallet(chain, d.wallet).token(chain, d.contract);
  for (const t of batch.txs) change.wallet(chain, t.from).wallet(chain, t.to);
  for (const t of input.newTokens) change.token(chain, t.address);
  return change;
}
