/** The kinds of webhook (the peer's `type`). */
export type WebhookType = 'balances' | 'activities' | 'transactions';

/** A webhook that watches some of a batch's addresses on its chain, with its filters. */
export interface WebhookWatch {
  id: string;
  type: WebhookType;
  /** The watched addresses the batch touched (lower-case). */
  addresses: ReadonlySet<string>;
  transactionType: 'sender' | 'receiver' | null;
  counterparty: string | null;
  activityType: string | null;
  assetType: string | null;
  tokenAddress: string | null;
}

/** Token metadata the items carry (from `tokens`). */
export interface ItemToken {
  symbol: string | null;
  name: string | null;
  decimals: number | null;
  standard: string | null;
}

/** A token's current price (from `token_prices`). */
export interface ItemPrice {
  priceUsd: number | null;
  poolSize: number | null;
  lowLiquidity: boolean;
}

/** The items of one delivery-to-be: one webhook, one block (or batch chunk), chain order. */
export interface BlockItems {
  webhookId: string;
  blockNumber: bigint;
  blockHash: string;
  items: Record<string, unknown>[];
}

/** A token's logo URL (`native` or a token address), as the read endpoints show it. */
export type LogoOf = (token: string) => string | undefined;

/** Whether `value` passes a filter that may be unset (null); compared lower-case. */
export function passes(filter: string | null, value: string | null | undefined): boolean {
  return filter === null || (value ?? '').toLowerCase() === filter.toLowerCase();
}
