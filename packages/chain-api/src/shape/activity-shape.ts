import type { ChainConfig } from '../chains/chain-config.js';
import type { ActivityRow, TokenRef } from './activity-row.js';
import { blockTimeIso, setIfPresent, usdValue } from './format.js';

/** The USD price shown with an activity row and the pool size behind it. */
export interface ActivityPrice {
  price_usd: number;
  pool_size: number | null;
}

/** Whether a row shows a price: native and ERC20 movements, not swaps (they carry two assets). */
export function priceEligible(row: Pick<ActivityRow, 'asset_type' | 'type'>): boolean {
  return (row.asset_type === 'native' || row.asset_type === 'erc20') && row.type !== 'swap';
}

/** The `token_prices` key of a row's asset. */
export const priceToken = (row: Pick<ActivityRow, 'token_address'>) =>
  row.token_address ?? 'native';

function tokenRefMetadata(ref: TokenRef | null): Record<string, unknown> | undefined {
  if (!ref) return undefined;
  const out: Record<string, unknown> = {};
  setIfPresent(out, 'symbol', ref.symbol);
  setIfPresent(out, 'decimals', ref.decimals);
  setIfPresent(out, 'name', ref.name);
  return out;
}

function stringValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/**
 * Maps a stored row to the peer's activity item. `logoOf` (token address or 'native' to a logo
 * URL, from the token list and chain registry) fills `logo` in the token metadata objects.
 */
export function shapeActivityItem(
  row: ActivityRow,
  chain: Pick<ChainConfig, 'nativeSymbol' | 'nativeName' | 'nativeDecimals'>,
  price: ActivityPrice | undefined,
  logoOf?: (token: string) => string | undefined,
): Record<string, unknown> {
  const item: Record<string, unknown> = {
    chain_id: row.chain_id,
    block_number: Number(row.block_number),
    block_time: blockTimeIso(row.block_time),
    tx_hash: row.tx_hash,
    type: row.type,
  };
  setIfPresent(item, 'asset_type', row.asset_type);
  setIfPresent(item, 'token_address', row.token_address);
  setIfPresent(item, 'from', row.from_address);
  setIfPresent(item, 'to', row.to_address);
  setIfPresent(item, 'value', row.value);
  if (row.type === 'approve') setIfPresent(item, 'spender', row.to_address);
  if (row.asset_type === 'erc721' || row.asset_type === 'erc1155') {
    setIfPresent(item, 'id', row.token_id);
  }

  let decimals: number | null = null;
  let metadata: Record<string, unknown> | undefined;
  if (row.asset_type === 'native') {
    decimals = chain.nativeDecimals;
    metadata = { symbol: chain.nativeSymbol, decimals, name: chain.nativeName };
  } else if (row.token) {
    decimals = row.token.decimals;
    metadata = tokenRefMetadata(row.token);
    if (metadata && (row.asset_type === 'erc721' || row.asset_type === 'erc1155')) {
      metadata.standard = row.asset_type;
      delete metadata.decimals;
    }
  }
  if (metadata && price) {
    metadata.price_usd = price.price_usd;
    setIfPresent(metadata, 'pool_size', price.pool_size);
    if (row.value !== null && decimals !== null && row.asset_type !== 'erc721') {
      item.value_usd = usdValue(row.value, decimals, price.price_usd);
    }
  }
  if (metadata) {
    const token = row.asset_type === 'native' ? 'native' : row.token_address;
    if (token) setIfPresent(metadata, 'logo', logoOf?.(token));
    item.token_metadata = metadata;
  }

  const extra = row.extra ?? {};
  if (row.type === 'call' && extra.function && typeof extra.function === 'object') {
    const fn = extra.function as { signature?: unknown; name?: unknown; inputs?: unknown };
    const decoded: Record<string, unknown> = {};
    if (typeof fn.signature === 'string') decoded.signature = fn.signature;
    if (typeof fn.name === 'string') decoded.name = fn.name;
    if (Array.isArray(fn.inputs)) {
      decoded.inputs = fn.inputs.map(
        (input: { name?: unknown; type?: unknown; value?: unknown }) => ({
          name: stringValue(input?.name ?? ''),
          type: stringValue(input?.type ?? ''),
          value: stringValue(input?.value ?? ''),
        }),
      );
    }
    item.function = decoded;
  }
  if (Array.isArray(extra.authorization_list)) item.authorization_list = extra.authorization_list;
  if (row.type === 'swap') {
    for (const side of ['from', 'to'] as const) {
      setIfPresent(item, `${side}_token_address`, extra[`${side}_token_address`] as string);
      setIfPresent(item, `${side}_token_value`, extra[`${side}_token_value`] as string);
      const ref =
        extra[`${side}_token_address`] === 'native'
          ? { symbol: chain.nativeSymbol, decimals: chain.nativeDecimals, name: chain.nativeName }
          : tokenRefMetadata(side === 'from' ? row.from_token : row.to_token);
      if (ref) {
        const token = extra[`${side}_token_address`];
        if (typeof token === 'string') setIfPresent(ref, 'logo', logoOf?.(token));
        item[`${side}_token_metadata`] = ref;
      }
    }
  }
  return item;
}
