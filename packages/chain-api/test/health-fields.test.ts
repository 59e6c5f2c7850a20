import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { ApiContext } from '../src/api/context.js';
import { healthRoute } from '../src/api/routes/health.js';

/**
 * /health carries each chain's stop reason, trace capability and deferred index count through
 * its response schema.
 */
describe('GET /health per-chain error and traces', () => {
  it('serializes error and traces, and reports syncing for a stopped chain', async () => {
    const chains = [
      {
        chain_id: 1,
        name: 'ethereum',
        head_block: 10,
        indexed_block: 10,
        lag_seconds: 0,
        ready: true,
        traces: 'unsupported' as const,
      },
      {
        chain_id: 31337,
        name: 'devnet',
        head_block: null,
        indexed_block: null,
        lag_seconds: null,
        ready: false,
        traces: 'supported' as const,
        error: 'chain 31337 (devnet): ... run `sluice-chain reset 31337` ...',
      },
      {
        chain_id: 8453,
        name: 'base',
        head_block: 20,
        indexed_block: 20,
        lag_seconds: 0,
        ready: false,
        traces: 'supported' as const,
        deferred_indexes: 6,
      },
    ];
    const ctx = {
      statusSource: { status: () => chains },
      ping: async () => {},
    } as unknown as ApiContext & { ping(): Promise<void> };
    const app = Fastify();
    await app.register(healthRoute(ctx));
    try {
      const res = await app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'syncing', database: 'ok', chains });
    } finally {
      await app.close();
    }
  });
});
