import type { JsonSchema } from '../params/param-spec.js';
import { warningsSchema } from './common-schemas.js';

const chainPointSchema: JsonSchema = {
  type: 'object',
  required: [
    'chain',
    'chain_id',
    'block_number',
    'value_usd',
    'priced_tokens',
    'unpriced_tokens',
    'unpriced_count',
    'complete',
  ],
  properties: {
    chain: { type: 'string' },
    chain_id: { type: 'integer' },
    block_number: {
      type: 'integer',
      nullable: true,
      description:
        "Last indexed block at or before the point's time; null when the chain's indexed history starts later.",
    },
    block_time: { type: 'string', format: 'date-time', nullable: true },
    value_usd: {
      type: 'number',
      nullable: true,
      description:
        'USD value of the priced holdings at that block (amount x price at the point time); null when the history does not reach this day.',
    },
    priced_tokens: { type: 'integer', description: 'Holdings counted in `value_usd`.' },
    unpriced_tokens: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Held tokens (`native` for the native asset) without a price at that time: not counted in `value_usd`. At most 20 are named; `unpriced_count` counts them all.',
    },
    unpriced_count: {
      type: 'integer',
      description: 'Held tokens without a price at that time, named in `unpriced_tokens` or not.',
    },
    complete: {
      type: 'boolean',
      description:
        'False when the history does not reach this day or a balance could not be read at that block (see `warnings`).',
    },
  },
};

export const portfolioResponseSchema: JsonSchema = {
  type: 'object',
  required: ['wallet_address', 'days', 'points'],
  properties: {
    request_time: { type: 'string', format: 'date-time' },
    response_time: { type: 'string', format: 'date-time' },
    wallet_address: { type: 'string' },
    days: { type: 'integer' },
    currency: { type: 'string', enum: ['usd'] },
    points: {
      type: 'array',
      description: 'One point per UTC day, oldest first; the last point is now.',
      items: {
        type: 'object',
        required: [
          'date',
          'time',
          'value_usd',
          'priced_tokens',
          'unpriced_count',
          'complete',
          'chains',
        ],
        properties: {
          date: { type: 'string', format: 'date' },
          time: {
            type: 'string',
            format: 'date-time',
            description: 'End of that UTC day (now for today): balances and prices are as of it.',
          },
          value_usd: { type: 'number', description: 'Sum over chains of the priced holdings.' },
          priced_tokens: { type: 'integer' },
          unpriced_count: {
            type: 'integer',
            description: 'Holdings without a price at that time (left out of `value_usd`).',
          },
          complete: {
            type: 'boolean',
            description:
              "False when a chain's history does not reach that day or some balances could not be read (see `warnings`).",
          },
          chains: { type: 'array', items: chainPointSchema },
        },
      },
    },
    warnings: warningsSchema,
  },
};
