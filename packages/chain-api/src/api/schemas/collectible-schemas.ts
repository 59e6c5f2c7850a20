import type { JsonSchema } from '../params/param-spec.js';
import { nextOffsetSchema, warningsSchema } from './common-schemas.js';

export const collectibleSchema: JsonSchema = {
  type: 'object',
  required: [
    'contract_address',
    'token_standard',
    'token_id',
    'chain',
    'chain_id',
    'balance',
    'last_acquired',
    'is_spam',
  ],
  properties: {
    contract_address: { type: 'string' },
    token_standard: { type: 'string', enum: ['ERC721', 'ERC1155'] },
    token_id: { type: 'string' },
    chain: { type: 'string' },
    chain_id: { type: 'integer' },
    name: { type: 'string' },
    symbol: { type: 'string' },
    description: { type: 'string' },
    image_url: { type: 'string' },
    last_sale_price: {
      type: 'string',
      description:
        'Latest sale price per unit, in the smallest unit of the payment token (wei for native).',
    },
    metadata: {
      type: 'object',
      properties: {
        uri: { type: 'string' },
        attributes: {
          type: 'array',
          items: {
            type: 'object',
            required: ['key', 'value'],
            properties: {
              key: { type: 'string' },
              value: { type: 'string' },
              format: { type: 'string' },
            },
          },
        },
      },
    },
    balance: { type: 'string' },
    last_acquired: { type: 'string', format: 'date-time' },
    is_spam: { type: 'boolean' },
    spam_score: { type: 'integer', minimum: 0, maximum: 100 },
    explanations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['feature'],
        properties: {
          feature: { type: 'string' },
          value: {},
          feature_score: { type: 'integer' },
          feature_weight: { type: 'number' },
        },
      },
    },
  },
};

export const collectiblesResponseSchema: JsonSchema = {
  type: 'object',
  required: ['address', 'entries', 'request_time', 'response_time'],
  properties: {
    address: { type: 'string' },
    entries: { type: 'array', items: collectibleSchema },
    warnings: warningsSchema,
    next_offset: nextOffsetSchema,
    request_time: { type: 'string', format: 'date-time' },
    response_time: { type: 'string', format: 'date-time' },
  },
};
