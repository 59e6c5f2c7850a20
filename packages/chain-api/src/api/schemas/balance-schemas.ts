import type { JsonSchema } from '../params/param-spec.js';
import { nextOffsetSchema, warningsSchema } from './common-schemas.js';

export const balanceSchema: JsonSchema = {
  type: 'object',
  required: ['chain', 'address', 'amount'],
  properties: {
    chain: { type: 'string' },
    chain_id: { type: 'integer' },
    address: { type: 'string', description: 'Token contract address or `native`.' },
    amount: { type: 'string', description: 'Smallest unit.' },
    symbol: { type: 'string' },
    name: { type: 'string' },
    decimals: { type: 'integer' },
    price_usd: { type: 'number' },
    value_usd: { type: 'number' },
    pool_size: { type: 'number', description: 'USD liquidity of the pool used for pricing.' },
    low_liquidity: { type: 'boolean' },
    historical_prices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['offset_hours', 'price_usd'],
        properties: {
          offset_hours: { type: 'integer', minimum: 1 },
          price_usd: { type: 'number' },
        },
      },
    },
    token_metadata: {
      type: 'object',
      properties: { logo: { type: 'string' }, url: { type: 'string' } },
    },
    pool: {
      type: 'object',
      required: ['pool_type', 'address', 'chain_id', 'tokens'],
      properties: {
        pool_type: { type: 'string' },
        address: { type: 'string' },
        chain_id: { type: 'integer' },
        tokens: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

export const balancesResponseSchema: JsonSchema = {
  type: 'object',
  required: ['wallet_address', 'balances'],
  properties: {
    wallet_address: { type: 'string' },
    balances: { type: 'array', items: balanceSchema },
    warnings: warningsSchema,
    next_offset: nextOffsetSchema,
    request_time: { type: 'string', format: 'date-time' },
    response_time: { type: 'string', format: 'date-time' },
    block_number: {
      type: 'integer',
      description: 'With `block_number`/`as_of`: the block the balances are as of (its end).',
    },
    block_time: {
      type: 'string',
      format: 'date-time',
      description: "With `block_number`/`as_of`: that block's timestamp (prices are as of it).",
    },
  },
};

export const singleBalanceResponseSchema: JsonSchema = {
  type: 'object',
  required: ['wallet_address', 'balances'],
  properties: {
    request_time: { type: 'string', format: 'date-time' },
    response_time: { type: 'string', format: 'date-time' },
    wallet_address: { type: 'string' },
    balances: { type: 'array', items: balanceSchema },
    warnings: warningsSchema,
  },
};
