import type { DecodedEvent } from '../decode/index.js';
import { type DeriveContext, ZERO_ADDRESS } from './derive-context.js';
import type { ActivityRow, ActivityType, AssetType, DerivedBatch } from './derived-batch.js';
import type { InternalTransfer } from './native-transfers.js';
import type { SaleErc20Transfer, SaleNftTransfer } from './nft-sales.js';
import type { SwapLeg } from './swap-legs.js';

/** Orders of `sub_index` at log_index -1 (transaction-level rows). */
export const SUB_CALL = 0;
export const SUB_NATIVE = 1;
export const SUB_INTERNAL = 2;
export const SUB_SWAP = 1000;

/** The decoded event of one kind. */
export type EventOf<K extends DecodedEvent['kind']> = Extract<DecodedEvent, { kind: K }>;

/** A Swap log of a pool, in log order. */
export interface SwapLog {
  logIndex: number;
  pool: string;
  dex: string;
}

/** One transaction being derived: its facts and what its steps collect for the later ones. */
export interface TxScope {
  out: DerivedBatch;
  ctx: DeriveContext;
  blockNumber: bigint;
  time: Date;
  txIndex: number;
  txHash: string;
  from: string;
  to: string | null;
  created: string | null;
  status: number;
  value: bigint;
  input: string;
  /** The transaction's activity rows, appended to the batch once it is done. */
  rows: ActivityRow[];
  /** Internal native transfers from the trace; undefined when traces are off or missing. */
  internal: InternalTransfer[] | undefined;
  decoded: { logIndex: number; ev: DecodedEvent }[];
  erc20Transfers: SaleErc20Transfer[];
  nftTransfers: SaleNftTransfer[];
  swapLogs: SwapLog[];
  legs: SwapLeg[];
}

export type RowFields = Partial<Pick<ActivityRow, 'tokenAddress' | 'value' | 'tokenId' | 'extra'>>;

/** Adds one activity row for `wallet` (none for the zero address). */
export function addRow(
  s: TxScope,
  wallet: string,
  type: ActivityType,
  assetType: AssetType | null,
  logIndex: number,
  subIndex: number,
  from: string | null,
  to: string | null,
  f: RowFields,
): void {
  if (wallet === ZERO_ADDRESS) return;
  // Rows are built as fixed-shape literals (no object spread): this is the hottest loop.
  s.rows.push({
    wallet,
    blockNumber: s.blockNumber,
    blockTime: s.time,
    txIndex: s.txIndex,
    logIndex,
    subIndex,
    txHash: s.txHash,
    type,
    assetType,
    tokenAddress: f.tokenAddress ?? null,
    from,
    to,
    value: f.value ?? null,
    tokenId: f.tokenId ?? null,
    extra: f.extra ?? null,
  });
}

/** send/receive/mint/burn/transfer rows for one movement. */
export function movement(
  s: TxScope,
  src: string,
  dst: string,
  assetType: AssetType,
  logIndex: number,
  subIndex: number,
  f: RowFields,
): void {
  if (src === ZERO_ADDRESS) addRow(s, dst, 'mint', assetType, logIndex, subIndex, src, dst, f);
  else if (dst === ZERO_ADDRESS) addRow(s, src, 'burn', assetType, logIndex, subIndex, src, dst, f);
  else if (src === dst) addRow(s, src, 'transfer', assetType, logIndex, subIndex, src, dst, f);
  else {
    addRow(s, src, 'send', assetType, logIndex, subIndex, src, dst, f);
    addRow(s, dst, 'receive', assetType, logIndex, subIndex, src, dst, f);
  }
}

/** Marks an address whose native balance may have changed. */
export function touch(out: DerivedBatch, address: string): void {
  if (address !== ZERO_ADDRESS) out.nativeTouched.add(address);
}

export function seenToken(
  out: DerivedBatch,
  address: string,
  hint: 'erc20' | 'erc721' | 'erc1155' | 'unknown',
  block: bigint,
): void {
  const prev = out.tokens.get(address);
  if (!prev) out.tokens.set(address, { hint, firstBlock: block });
  else if (prev.hint === 'unknown' && hint !== 'unknown') prev.hint = hint;
}
