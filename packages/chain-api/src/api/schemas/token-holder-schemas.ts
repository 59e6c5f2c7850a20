import type { JsonSchema } from '../params/param-spec.js';
import { nextOffsetSchema } from './common-schemas.js';

export const holderSchema: JsonSchema = {
  type: 'object',
  properties: {
    wallet_address: { type: 'string' },
    balance: {
      type: 'string',
      description: 'Raw balance (ERC20 smallest unit; NFTs: items held).',
    },
    first_acquired: {
      type: 'string',
      format: 'date-time',
      description: 'Block time of the first receipt.',
    },
    has_initiated_transfer: {
      type: 'boolean',
      description: 'The holder has sent (or burned) some of the token.',
    },
  },
};

export const tokenHoldersResponseSchema: JsonSchema = {
  type: 'object',
  required: ['token_address', 'chain_id', 'holders'],
  properties: {
    token_address: { type: 'string' },
    chain_id: { type: 'integer' },
    holders: { type: 'array', items: holderSchema, description: 'Largest balance first.' },
    next_offset: nextOffsetSchema,
  },
};
