import type { JsonSchema } from '../params/param-spec.js';
import { nextOffsetSchema, warningsSchema } from './common-schemas.js';

const decodedSchema: JsonSchema = {
  type: 'object',
  description: 'Present only with `decode=true` when the selector/event is known.',
  properties: {
    name: { type: 'string' },
    inputs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          type: { type: 'string' },
          value: {
            description: 'Scalars as strings; array parameters as arrays of strings.',
            anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
          },
        },
      },
    },
  },
};

export const transactionLogSchema: JsonSchema = {
  type: 'object',
  properties: {
    address: { type: 'string' },
    data: { type: 'string' },
    topics: { type: 'array', items: { type: 'string' } },
    log_index: { type: 'integer' },
    decoded: decodedSchema,
  },
};

export const transactionSchema: JsonSchema = {
  type: 'object',
  required: ['address', 'block_hash', 'block_number', 'block_time', 'chain', 'from', 'hash'],
  properties: {
    address: { type: 'string', description: 'The wallet asked about.' },
    block_hash: { type: 'string' },
    block_number: { type: 'string' },
    block_time: { type: 'string', format: 'date-time' },
    chain: { type: 'string' },
    chain_id: { type: 'integer' },
    from: { type: 'string' },
    to: { type: 'string', description: 'Absent for a contract creation.' },
    contract_address: { type: 'string', description: 'Contract created by the transaction.' },
    data: { type: 'string', description: 'Calldata, 0x-hex.' },
    gas_price: { type: 'string', description: 'Effective gas price, 0x-hex.' },
    gas_used: { type: 'string', description: 'Gas used, 0x-hex.' },
    hash: { type: 'string' },
    index: { type: 'string', description: 'Position in the block.' },
    success: { type: 'boolean', description: 'False when the transaction reverted.' },
    value: { type: 'string', description: 'Native value, 0x-hex.' },
    decoded: decodedSchema,
    logs: {
      type: 'array',
      items: transactionLogSchema,
      description: 'Logs the store keeps for the transaction (see the endpoint description).',
    },
  },
};

export const transactionsResponseSchema: JsonSchema = {
  type: 'object',
  required: ['wallet_address', 'transactions'],
  properties: {
    wallet_address: { type: 'string' },
    transactions: { type: 'array', items: transactionSchema, description: 'Newest first.' },
    warnings: warningsSchema,
    next_offset: nextOffsetSchema,
    request_time: { type: 'string' },
    response_time: { type: 'string' },
  },
};
