import type { ChainConfig } from '../chains/index.js';

const zeroAddress = '0x0000000000000000000000000000000000000000';

/** One NFT movement of the transaction (ERC721 Transfer or one ERC1155 TransferSingle/Batch item). */
export interface SaleNftTransfer {
  logIndex: number;
  contract: string;
  tokenId: bigint;
  from: string;
  to: string;
  /** 1 for ERC721, the amount for ERC1155. */
  quantity: bigint;
}

/** One ERC20 Transfer log of the transaction. */
export interface SaleErc20Transfer {
  logIndex: number;
  token: string;
  from: string;
  to: string;
  value: bigint;
}

/** One internal native value transfer (from a call trace). */
export interface SaleNativeTransfer {
  from: string;
  to: string;
  value: bigint;
}

/** Everything about one transaction that sales attribution looks at. */
export interface SaleTxInput {
  chainId: number;
  blockNumber: bigint;
  blockTime: Date;
  txHash: string;
  /** Transaction sender and recipient (null for contract creation) and its top-level value. */
  from: string;
  to: string | null;
  value: bigint;
  nftTransfers: readonly SaleNftTransfer[];
  erc20Transfers: readonly SaleErc20Transfer[];
  /**
   * Internal native transfers from traces. Omit (undefined) when the chain has no traces: then a
   * buyer-sent top-level value is taken as the payment. Pass `[]` when traced and there were none.
   */
  internalTransfers?: readonly SaleNativeTransfer[] | undefined;
}

/** One attributed sale, shaped for the `nft_sales` table. */
export interface NftSale {
  chainId: number;
  contract: string;
  tokenId: bigint;
  blockNumber: bigint;
  blockTime: Date;
  txHash: string;
  logIndex: number;
  seller: string;
  buyer: string;
  quantity: bigint;
  /** `'native'` or the lower-case address of the ERC20 paid with (WETH or a stablecoin). */
  paymentToken: string;
  /** Price PER UNIT in the payment token's smallest unit (wei for native), rounded down. */
  price: bigint;
}

/**
 * The currencies a sale may be paid in: `native`, then the chain's wrapped native, then its
 * stablecoins (also the preference order when a seller received several).
 *
 * @example
 * paymentTokensOf(chain); // ['0xc02a...', '0xa0b8...', ...]
 */
export function paymentTokensOf(
  chain: Pick<ChainConfig, 'wrappedNative' | 'stablecoins'>,
): string[] {
  const out = chain.wrappedNative ? [chain.wrappedNative.toLowerCase()] : [];
  for (const token of chain.stablecoins) {
    const lower = token.toLowerCase();
    if (!out.includes(lower)) out.push(lower);
  }
  return out;
}

type Ledger = Map<string, bigint>;

function add(ledger: Ledger, address: string, value: bigint): void {
  if (value > 0n) ledger.set(address, (ledger.get(address) ?? 0n) + value);
}

/**
 * Attributes NFT sales in one transaction. An NFT moved from a seller to a buyer (mints, burns and
 * self-transfers excluded) is sold when the same transaction pays that seller in native currency
 * (top-level value or an internal transfer), the wrapped native or a stablecoin. The price of a
 * seller's NFTs is what their buyers paid in that currency (marketplace fees and royalties
 * included), or what the seller received when the buyers paid nothing visible (escrowed bids),
 * shared among sellers by what each received, then split evenly per unit moved. Without traces
 * (`internalTransfers` undefined), a top-level value sent by the buyer counts as the payment.
 * Pure and deterministic: the indexer calls it inside its batch so sales roll back with reorgs.
 *
 * @example
 * attributeSales(tx, paymentTokensOf(chain)); // [{ contract, tokenId, seller, buyer, paymentToken: 'native', price: 10n**18n, ... }]
 */
export function attributeSales(tx: SaleTxInput, paymentTokens: readonly string[]): NftSale[] {
  const moves = mergeMoves(tx.nftTransfers);
  if (moves.length === 0) return [];
  const currencies = ['native', ...paymentTokens.map((t) => t.toLowerCase())];
  const txFrom = tx.from.toLowerCase();
  const txTo = tx.to?.toLowerCase() ?? null;
  const traced = tx.internalTransfers !== undefined;

  const received = new Map<string, Ledger>();
  const paid = new Map<string, Ledger>();
  for (const currency of currencies) {
    received.set(currency, new Map());
    paid.set(currency, new Map());
  }
  const nativeIn = received.get('native')!;
  const nativeOut = paid.get('native')!;
  if (txTo !== null && txTo !== txFrom) add(nativeIn, txTo, tx.value);
  add(nativeOut, txFrom, tx.value);
  for (const t of tx.internalTransfers ?? []) {
    const from = t.from.toLowerCase();
    const to = t.to.toLowerCase();
    if (from === to) continue;
    add(nativeIn, to, t.value);
    add(nativeOut, from, t.value);
  }
  for (const t of tx.erc20Transfers) {
    const token = t.token.toLowerCase();
    const from = t.from.toLowerCase();
    const to = t.to.toLowerCase();
    if (from === to) continue;
    const inLedger = received.get(token);
    if (!inLedger) continue;
    add(inLedger, to, t.value);
    add(paid.get(token)!, from, t.value);
  }

  // Each seller's currency: the first in preference order that paid them.
  const sellers = [...new Set(moves.map((m) => m.from))];
  const currencyOf = new Map<string, string>();
  for (const seller of sellers) {
    const currency = currencies.find((c) => (received.get(c)!.get(seller) ?? 0n) > 0n);
    if (currency) currencyOf.set(seller, currency);
  }

  const sales: NftSale[] = [];
  const sell = (group: Move[], currency: string, gross: bigint) => {
    const units = group.reduce((sum, m) => sum + m.quantity, 0n);
    if (units === 0n || gross <= 0n) return;
    const price = gross / units;
    for (const m of group) sales.push(toSale(tx, m, currency, price));
  };

  for (const seller of sellers) {
    const currency = currencyOf.get(seller);
    if (!currency) continue;
    const group = moves.filter((m) => m.from === seller);
    const buyers = new Set(group.map((m) => m.to));
    // Sellers paid in the same currency who share a buyer with this one split those buyers' payment.
    const peers = sellers.filter(
      (s) => currencyOf.get(s) === currency && moves.some((m) => m.from === s && buyers.has(m.to)),
    );
    const peerBuyers = new Set(moves.filter((m) => peers.includes(m.from)).map((m) => m.to));
    const inLedger = received.get(currency)!;
    const outLedger = paid.get(currency)!;
    const mine = inLedger.get(seller) ?? 0n;
    const peersReceived = peers.reduce((sum, s) => sum + (inLedger.get(s) ?? 0n), 0n);
    const buyersPaid = [...peerBuyers].reduce((sum, b) => sum + (outLedger.get(b) ?? 0n), 0n);
    const gross =
      buyersPaid >= peersReceived && peersReceived > 0n
        ? (buyersPaid * mine) / peersReceived
        : mine;
    sell(group, currency, gross);
  }

  // No traces: the seller's native proceeds are invisible; the buyer's top-level value is the price.
  if (!traced && tx.value > 0n && txTo !== null) {
    const unpaid = moves.filter(
      (m) => !currencyOf.has(m.from) && m.to === txFrom && m.contract !== txTo,
    );
    sell(unpaid, 'native', tx.value);
  }
  return sales.sort((a, b) => a.logIndex - b.logIndex || (a.tokenId < b.tokenId ? -1 : 1));
}

interface Move {
  logIndex: number;
  contract: string;
  tokenId: bigint;
  from: string;
  to: string;
  quantity: bigint;
}

/** Lower-cases, drops mints/burns/self-transfers/zero amounts, merges duplicate ids in one log. */
function mergeMoves(transfers: readonly SaleNftTransfer[]): Move[] {
  const byKey = new Map<string, Move>();
  for (const t of transfers) {
    const from = t.from.toLowerCase();
    const to = t.to.toLowerCase();
    if (from === zeroAddress || to === zeroAddress || from === to || t.quantity <= 0n) continue;
    const contract = t.contract.toLowerCase();
    const key = `${t.logIndex}:${contract}:${t.tokenId}:${from}:${to}`;
    const existing = byKey.get(key);
    if (existing) existing.quantity += t.quantity;
    else
      byKey.set(key, {
        logIndex: t.logIndex,
        contract,
        tokenId: t.tokenId,
        from,
        to,
        quantity: t.quantity,
      });
  }
  return [...byKey.values()];
}

function toSale(tx: SaleTxInput, move: Move, currency: string, price: bigint): NftSale {
  return {
    chainId: tx.chainId,
    contract: move.contract,
    tokenId: move.tokenId,
    blockNumber: tx.blockNumber,
    blockTime: tx.blockTime,
    txHash: tx.txHash.toLowerCase(),
    logIndex: move.logIndex,
    seller: move.from,
    buyer: move.to,
    quantity: move.quantity,
    paymentToken: currency,
    price,
  };
}
