export {
  applyPoolEvents,
  type PoolChanges,
  type PoolState,
  type PoolStateRow,
} from './apply-pool-events.js';
export {
  type DeriveContext,
  deriveBatch,
  emptyBatch,
  resolveApprovalStandards,
  ZERO_ADDRESS,
} from './derive-batch.js';
export type * from './derived-batch.js';
export { fetchNativeBalances } from './native-balances.js';
export { type InternalTransfer, internalTransfers } from './native-transfers.js';
export {
  attributeSales,
  type NftSale,
  paymentTokensOf,
  type SaleErc20Transfer,
  type SaleNativeTransfer,
  type SaleNftTransfer,
  type SaleTxInput,
} from './nft-sales.js';
export { decodeText, fetchTokenMetadata, type TokenMetadata } from './token-metadata.js';
