import type { JsonSchema } from '../params/param-spec.js';
import { warningsSchema } from './common-schemas.js';

/** Schemas of the DeFi endpoints: the peer's, plus a few documented fields beyond it. */

const tokenRef: JsonSchema = {
  type: 'object',
  properties: { address: { type: 'string' }, name: { type: 'string' }, symbol: { type: 'string' } },
};

const tokenWithDecimals: JsonSchema = {
  type: 'object',
  properties: { ...(tokenRef.properties as object), decimals: { type: 'integer' } },
};

const logo: JsonSchema = { type: 'string', nullable: true, description: 'Token logo URL.' };
const common = {
  chain: { type: 'string' },
  chain_id: { type: 'integer' },
  protocol: { type: 'string' },
  logo,
};

const erc4626Position: JsonSchema = {
  type: 'object',
  required: ['type', 'chain_id', 'token', 'balance', 'value_usd'],
  properties: {
    type: { type: 'string', enum: ['Erc4626'] },
    ...common,
    token: { ...tokenRef, description: 'The vault (share) token.' },
    underlying_token: {
      type: 'object',
      properties: {
        ...(tokenWithDecimals.properties as object),
        holdings: { type: 'number', description: '`convertToAssets(shares)`, decimal-adjusted.' },
      },
    },
    balance: { type: 'number', description: 'Shares held, decimal-adjusted.' },
    price_usd: { type: 'number', description: 'USD per share; 0 when the asset has no price.' },
    value_usd: { type: 'number' },
    preview_redeem: {
      type: 'number',
      description: '`previewRedeem(shares)`, when the vault answers.',
    },
    convert_to_assets: { type: 'number' },
  },
};

const ammToken: JsonSchema = {
  type: 'object',
  properties: {
    ...(tokenWithDecimals.properties as object),
    price_usd: { type: 'number', description: 'Absent when the token has no price.' },
    holdings: { type: 'number', description: "The position's share of the reserve." },
  },
};

const uniswapV2Position: JsonSchema = {
  type: 'object',
  required: ['type', 'chain_id', 'protocol', 'pool', 'token0', 'token1', 'value_usd'],
  properties: {
    type: { type: 'string', enum: ['UniswapV2'] },
    ...common,
    pool: { type: 'string', description: 'Pair contract (also the LP token).' },
    token0: ammToken,
    token1: ammToken,
    lp_balance: { type: 'string', description: 'Raw LP balance, 0x hex.' },
    balance: { type: 'number', description: 'LP balance, decimal-adjusted.' },
    price_usd: { type: 'number', description: 'USD per LP token.' },
    value_usd: { type: 'number' },
  },
};

const nftToken: JsonSchema = {
  type: 'object',
  properties: {
    price_usd: { type: 'number' },
    holdings: { type: 'number', description: 'Amount at the current pool price.' },
    rewards: { type: 'number', description: 'Uncollected fees.' },
  },
};

const nftPosition: JsonSchema = {
  type: 'object',
  required: ['tick_lower', 'tick_upper', 'token_id'],
  properties: {
    tick_lower: { type: 'integer' },
    tick_upper: { type: 'integer' },
    token_id: { type: 'string', description: 'NFT id, 0x hex.' },
    liquidity: { type: 'string', description: 'Beyond the peer: the position liquidity L.' },
    in_range: {
      type: 'boolean',
      description: "Beyond the peer: the pool's current tick is in [tick_lower, tick_upper).",
    },
    token0: nftToken,
    token1: nftToken,
  },
};

const uniswapV3Position: JsonSchema = {
  type: 'object',
  required: ['type', 'chain_id', 'protocol', 'pool', 'token0', 'token1', 'positions', 'value_usd'],
  properties: {
    type: { type: 'string', enum: ['Nft'] },
    ...common,
    pool: { type: 'string' },
    position_manager: {
      type: 'string',
      description: 'Beyond the peer: the NonfungiblePositionManager holding the positions.',
    },
    fee: { type: 'integer', description: 'Beyond the peer: pool fee tier, hundredths of a bip.' },
    token0: tokenWithDecimals,
    token1: tokenWithDecimals,
    positions: { type: 'array', items: nftPosition },
    value_usd: { type: 'number', description: 'Holdings plus uncollected fees, priced legs.' },
  },
};

export const defiPositionsResponseSchema: JsonSchema = {
  type: 'object',
  required: ['positions'],
  properties: {
    positions: {
      type: 'array',
      items: { oneOf: [erc4626Position, uniswapV2Position, uniswapV3Position] },
    },
    aggregations: {
      type: 'object',
      properties: {
        total_value_usd: { type: 'number' },
        total_by_chain: {
          type: 'object',
          description: 'USD value per chain id (string keys).',
          additionalProperties: { type: 'number' },
        },
      },
    },
    warnings: warningsSchema,
  },
};

export const supportedProtocolsResponseSchema: JsonSchema = {
  type: 'object',
  required: ['protocol_families'],
  properties: {
    protocol_families: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          family: { type: 'string', example: 'uniswap_v2' },
          chains: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                chain_id: { type: 'integer' },
                chain_name: { type: 'string' },
                status: { type: 'string', enum: ['stable', 'preview'] },
              },
            },
          },
          sub_protocols: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};
