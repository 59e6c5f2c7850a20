import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-harness.js';

/** `GET /v1/console/status`: keyed, per chain status + capabilities + worker queues. */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ console: { assets: null } });
  await api.t.db.query(
    `insert into checkpoints (chain_id, indexed_block, indexed_hash, capabilities)
     values (1, 100, '0xabc', '{"traces": false, "blockReceipts": true, "multicall3": "0xca11bde05977b3631167028862be2a173976ca11"}')`,
  );
  await api.t.db.query(
    `insert into nft_metadata (chain_id, contract, token_id, standard, status)
     values (1, '0x01', 1, 'erc721', 'pending'), (1, '0x01', 2, 'erc721', 'pending'),
            (1, '0x01', 3, 'erc721', 'failed'), (1, '0x01', 4, 'erc721', 'ok')`,
  );
});
afterAll(async () => {
  await api?.close();
});

interface Body {
  chains: {
    chain_id: number;
    indexed_block: number;
    capabilities: Record<string, unknown>;
    workers: { name: string; queue: number; detail: string }[];
    rates: unknown[];
  }[];
  usage: unknown;
}

describe('GET /v1/console/status', () => {
  it('needs an API key', async () => {
    const res = await api.get('/v1/console/status', {});
    expect(res.status).toBe(401);
  });

  it('answers each chain with capabilities from its checkpoint and the workers queues', async () => {
    const res = await api.get('/v1/console/status');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Body;
    expect(body.chains.map((c) => c.chain_id)).toEqual(api.chains.map((c) => c.chainId));
    const eth = body.chains.find((c) => c.chain_id === 1)!;
    expect(eth.capabilities).toMatchObject({
      traces: 'unsupported',
      multicall3: '0xca11bde05977b3631167028862be2a173976ca11',
      block_receipts: true,
    });
    const metadata = eth.workers.find((w) => w.name === 'NFT metadata');
    expect(metadata).toMatchObject({ queue: 2, detail: '1 failed (retried later)' });
    const base = body.chains.find((c) => c.chain_id === 8453)!;
    expect(base.capabilities).toMatchObject({ traces: 'unknown', block_receipts: null });
    expect(body.usage).toBeNull();
  });
});
