import type { JsonSchema } from '../params/param-spec.js';
import { nextOffsetSchema, warningsSchema } from './common-schemas.js';

const tokenRefProperties = {
  symbol: { type: 'string' },
  decimals: { type: 'integer' },
  name: { type: 'string' },
  logo: { type: 'string' },
};
const tokenRefMetadata: JsonSchema = { type: 'object', properties: tokenRefProperties };

export const activityItemSchema: JsonSchema = {
  type: 'object',
  properties: {
    chain_id: { type: 'integer' },
    block_number: { type: 'integer' },
    block_time: { type: 'string', format: 'date-time' },
    tx_hash: { type: 'string' },
    type: {
      type: 'string',
      enum: ['approve', 'burn', 'call', 'mint', 'receive', 'send', 'swap', 'transfer'],
    },
    asset_type: { type: 'string', enum: ['native', 'erc20', 'erc721', 'erc1155'] },
    token_address: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    value: { type: 'string', description: 'Amount in the smallest unit (or the call value).' },
    value_usd: { type: 'number' },
    id: { type: 'string', description: 'Token id (ERC721/ERC1155).' },
    spender: { type: 'string', description: 'Approved address (approve).' },
    token_metadata: {
      type: 'object',
      properties: {
        ...tokenRefProperties,
        price_usd: { type: 'number' },
        pool_size: { type: 'number' },
        standard: { type: 'string' },
      },
    },
    function: {
      type: 'object',
      description: 'Decoded function call (call).',
      properties: {
        signature: { type: 'string' },
        name: { type: 'string' },
        inputs: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              type: { type: 'string' },
              value: { type: 'string' },
            },
          },
        },
      },
    },
    authorization_list: {
      type: 'array',
      description:
        "EIP-7702 authorizations of a set-code transaction, on its sender's row: `authority` delegates its account to the code at `address`; `0x0000000000000000000000000000000000000000` clears the delegation. As signed (the chain skips one whose chain id or nonce does not match); `authority` is null when the signature does not recover.",
      items: {
        type: 'object',
        properties: {
          chain_id: { type: 'integer' },
          address: { type: 'string' },
          nonce: { type: 'string' },
          authority: { type: 'string', nullable: true },
        },
      },
    },
    from_token_address: { type: 'string' },
    from_token_value: { type: 'string' },
    from_token_metadata: tokenRefMetadata,
    to_token_address: { type: 'string' },
    to_token_value: { type: 'string' },
    to_token_metadata: tokenRefMetadata,
  },
};

export const activityResponseSchema: JsonSchema = {
  type: 'object',
  required: ['activity'],
  properties: {
    activity: { type: 'array', items: activityItemSchema, description: 'Newest first.' },
    warnings: warningsSchema,
    next_offset: nextOffsetSchema,
  },
};
