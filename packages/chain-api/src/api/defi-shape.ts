import type { ChainConfig } from '../chains/chain-config.js';
import { v2ProtocolLabel, v3ProtocolLabel } from '../defi/protocol-labels.js';
import type {
  PositionState,
  V2PositionState,
  V3PositionState,
  VaultPositionState,
} from '../defi/read-positions.js';
import { inRange } from '../defi/uniswap-v3-math.js';
import { setIfPresent, usdValue } from '../shape/format.js';

/** What the shaping needs to know about a token. */
export interface TokenView {
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  /** Current USD price; null when it has none. */
  price: number | null;
  logo: string | undefined;
}

/** One shaped position and its USD value (for the aggregations). */
export interface ShapedPosition {
  body: Record<string, unknown>;
  valueUsd: number;
}

type Lookup = (address: string) => TokenView;

const hex = (value: bigint): string => `0x${value.toString(16)}`;
const units = (raw: bigint, decimals: number): number => usdValue(raw.toString(), decimals, 1);

/** USD value of a raw amount; 0 when the token has no price or no known decimals. */
function worth(raw: bigint, token: TokenView): number {
  return token.price !== null && token.decimals !== null
    ? usdValue(raw.toString(), token.decimals, token.price)
    : 0;
}

function ref(t: TokenView, withDecimals: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { address: t.address };
  setIfPresent(out, 'name', t.name);
  setIfPresent(out, 'symbol', t.symbol);
  if (withDecimals) setIfPresent(out, 'decimals', t.decimals);
  return out;
}

/** Holdings (and fees) of one token: decimal-adjusted, with its price when it has one. */
function leg(t: TokenView, holdings: bigint, rewards?: bigint | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  setIfPresent(out, 'price_usd', t.price);
  if (t.decimals !== null) {
    out.holdings = units(holdings, t.decimals);
    if (rewards !== undefined && rewards !== null) out.rewards = units(rewards, t.decimals);
  }
  return out;
}

const logoOf = (...tokens: TokenView[]): string | null => tokens.find((t) => t.logo)?.logo ?? null;

function shapeV2(p: V2PositionState, chain: ChainConfig, token: Lookup): ShapedPosition | null {
  const pair = token(p.pair);
  if (pair.decimals === null) return null;
  const [t0, t1] = [token(p.token0), token(p.token1)];
  const value = worth(p.amount0, t0) + worth(p.amount1, t1);
  const balance = units(p.lpBalance, pair.decimals);
  const body: Record<string, unknown> = {
    type: 'UniswapV2',
    chain: chain.name,
    chain_id: chain.chainId,
    protocol: v2ProtocolLabel(pair.name),
    pool: p.pair,
    token0: { ...ref(t0, true), ...leg(t0, p.amount0) },
    token1: { ...ref(t1, true), ...leg(t1, p.amount1) },
    lp_balance: hex(p.lpBalance),
    balance,
  };
  if (balance > 0 && (t0.price !== null || t1.price !== null)) body.price_usd = value / balance;
  body.value_usd = value;
  body.logo = logoOf(t0, t1);
  return { body, valueUsd: value };
}

function shapeVault(
  p: VaultPositionState,
  chain: ChainConfig,
  token: Lookup,
): ShapedPosition | null {
  const [vault, asset] = [token(p.vault), token(p.asset)];
  if (vault.decimals === null || asset.decimals === null) return null;
  const value = worth(p.assets, asset);
  const balance = units(p.shares, vault.decimals);
  const body: Record<string, unknown> = {
    type: 'Erc4626',
    chain: chain.name,
    chain_id: chain.chainId,
    protocol: 'Unknown',
    token: ref(vault, false),
    underlying_token: { ...ref(asset, true), holdings: units(p.assets, asset.decimals) },
    balance,
    price_usd: balance > 0 ? value / balance : 0,
    value_usd: value,
  };
  if (p.previewRedeem !== null) body.preview_redeem = units(p.previewRedeem, asset.decimals);
  body.convert_to_assets = units(p.assets, asset.decimals);
  body.logo = logoOf(asset);
  return { body, valueUsd: value };
}

/** v3 positions grouped per (manager, pool), as the peer lists them. */
function shapeV3(group: V3PositionState[], chain: ChainConfig, token: Lookup): ShapedPosition {
  const first = group[0]!;
  const [t0, t1] = [token(first.token0), token(first.token1)];
  let value = 0;
  const positions = group.map((p) => {
    value += worth(p.amount0 + (p.fees0 ?? 0n), t0) + worth(p.amount1 + (p.fees1 ?? 0n), t1);
    return {
      tick_lower: p.tickLower,
      tick_upper: p.tickUpper,
      token_id: hex(p.tokenId),
      liquidity: p.liquidity.toString(),
      in_range: inRange(p.tick, p.tickLower, p.tickUpper),
      token0: leg(t0, p.amount0, p.fees0),
      token1: leg(t1, p.amount1, p.fees1),
    };
  });
  const body: Record<string, unknown> = {
    type: 'Nft',
    chain: chain.name,
    chain_id: chain.chainId,
    protocol: v3ProtocolLabel(token(first.manager).name),
    pool: first.pool,
    position_manager: first.manager,
    fee: first.fee,
    token0: ref(t0, true),
    token1: ref(t1, true),
    positions,
    value_usd: value,
    logo: logoOf(t0, t1),
  };
  return { body, valueUsd: value };
}

/**
 * Maps one chain's position states to the peer's position objects (v3 NFTs grouped per pool),
 * largest USD value first, then by contract address. Positions whose amounts cannot be scaled
 * (a token without known decimals) are left out.
 *
 * @example
 * const shaped = shapePositions(states, chain, (a) => views.get(a)!);
 */
export function shapePositions(
  states: readonly PositionState[],
  chain: ChainConfig,
  token: Lookup,
): ShapedPosition[] {
  const out: { shaped: ShapedPosition; key: string }[] = [];
  const v3 = new Map<string, V3PositionState[]>();
  for (const p of states) {
    if (p.kind === 'uniswap_v3') {
      const key = `${p.manager}|${p.pool}`;
      v3.set(key, [...(v3.get(key) ?? []), p]);
      continue;
    }
    const shaped = p.kind === 'uniswap_v2' ? shapeV2(p, chain, token) : shapeVault(p, chain, token);
    if (shaped) out.push({ shaped, key: p.kind === 'uniswap_v2' ? p.pair : p.vault });
  }
  for (const [key, group] of v3) {
    group.sort((a, b) => (a.tokenId < b.tokenId ? -1 : 1));
    out.push({ shaped: shapeV3(group, chain, token), key });
  }
  out.sort((a, b) => b.shaped.valueUsd - a.shaped.valueUsd || (a.key < b.key ? -1 : 1));
  return out.map((o) => o.shaped);
}
