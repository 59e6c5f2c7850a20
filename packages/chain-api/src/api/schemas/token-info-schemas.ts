import type { JsonSchema } from '../params/param-spec.js';
import { warningsSchema } from './common-schemas.js';

export const tokenInfoSchema: JsonSchema = {
  type: 'object',
  properties: {
    chain: { type: 'string' },
    chain_id: { type: 'integer' },
    symbol: { type: 'string' },
    name: { type: 'string' },
    decimals: { type: 'integer' },
    price_usd: { type: 'number' },
    historical_prices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['offset_hours', 'price_usd'],
        properties: { offset_hours: { type: 'integer' }, price_usd: { type: 'number' } },
      },
    },
    total_supply: {
      type: 'string',
      description:
        'Sum of all balances (raw units), present when the chain is indexed from its genesis.',
    },
    market_cap: { type: 'number', description: 'total_supply x price_usd, when both exist.' },
    logo: { type: 'string' },
    pool_size: { type: 'number', description: 'USD liquidity of the pricing pool.' },
    low_liquidity: { type: 'boolean' },
  },
};

export const tokensResponseSchema: JsonSchema = {
  type: 'object',
  required: ['contract_address', 'tokens'],
  properties: {
    contract_address: { type: 'string' },
    tokens: { type: 'array', items: tokenInfoSchema },
    warnings: warningsSchema,
  },
};
