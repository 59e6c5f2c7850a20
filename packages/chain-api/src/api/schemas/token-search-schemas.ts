import type { JsonSchema } from '../params/param-spec.js';

export const tokenSearchResultSchema: JsonSchema = {
  type: 'object',
  required: ['chain_id', 'address', 'token_type', 'symbol', 'name'],
  properties: {
    chain_id: { type: 'integer' },
    address: { type: 'string' },
    token_type: { type: 'string', enum: ['ERC20'] },
    symbol: { type: 'string' },
    name: { type: 'string' },
    logo: { type: 'string', nullable: true },
    decimals: { type: 'integer', nullable: true },
  },
};

export const tokenSearchResponseSchema: JsonSchema = {
  type: 'array',
  items: tokenSearchResultSchema,
  description: 'Ranked by pool liquidity, then holders, then (chain_id, address). May be empty.',
};
