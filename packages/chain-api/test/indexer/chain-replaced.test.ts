import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointStatusSource } from '../../src/api/readiness.js';
import { storeMigrations } from '../../src/api/store-migrations.js';
import type { ChainConfig } from '../../src/chains/index.js';
import { resetCommand } from '../../src/cli/reset-command.js';
import { loadConfig } from '../../src/config/index.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce, startIndexers } from '../../src/ingest/index.js';
import { captureLog } from '../support/capture-log.js';
import { checkGroundTruth } from './ground-truth.js';
import { rpcCall, send, waitReceipt } from './random-workload.js';

/** Chain replaced under the same chain id: one clear error, no loop, reset works. */
const DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Hex;
let t: TestDatabase;
const anvils: AnvilInstance[] = [];
const extra: TestDatabase[] = [];

function chain(rpcUrl: string, over: Partial<ChainConfig> = {}): ChainConfig {
  return {
    chainId: 31337,
    name: 'devnet',
    tags: ['devnet'],
    nativeSymbol: 'ETH',
    nativeName: 'Ether',
    nativeDecimals: 18,
    rpcUrl,
    startBlock: 0n,
    finalityDepth: 3,
    stablecoins: [],
    uniswapV2Factories: [],
    uniswapV3Factories: [],
    ...over,
  };
}

/** Mines `n` blocks, each with one native send to a seed-dependent address. */
async function mine(url: string, n: number, seed: number): Promise<void> {
  let last: Hex | undefined;
  for (let i = 0; i < n; i++) {
    const to = `0x${(seed * 1000 + i + 1).toString(16).padStart(40, '0')}` as Hex;
    last = await send(url, DEV, to, '0x', BigInt(1_000_000 + seed * 7 + i));
  }
  // anvil may answer before the last block is sealed; tests read the head right after.
  if (last) await waitReceipt(url, last);
}

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out waiting');
}

async function freshDb(): Promise<Database> {
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
  return t.db;
}

beforeAll(async () => {
  await freshDb();
});
afterAll(async () => {
  for (const a of anvils) await a.stop();
  await t?.drop();
  for (const x of extra) await x.drop();
});

describe('a replaced chain', () => {
  it('new genesis under the same chain id: one clear error, no retry loop; reset, then indexing works', async () => {
    const db = t.db;
    const a = await startAnvil({ genesisTimestamp: 1_700_000_000 });
    anvils.push(a);
    await mine(a.rpcUrl, 12, 1);
    await indexOnce({ db, chains: [chain(a.rpcUrl)], log: pino({ level: 'silent' }) });
    await a.stop();

    const b = await startAnvil({ genesisTimestamp: 1_700_000_500 });
    anvils.push(b);
    await mine(b.rpcUrl, 20, 2);
    const { log, lines } = captureLog();
    const indexers = await startIndexers({
      db,
      chains: [chain(b.rpcUrl)],
      log,
      pollIntervalMs: 20,
    });
    try {
      await waitFor(() => indexers.status()[0]?.error !== undefined);
      const status = indexers.status()[0];
      expect(status?.ready).toBe(false);
      expect(status?.error).toMatch(/chain 31337 \(devnet\).*genesis/);
      expect(status?.error).toContain('sluice-chain reset 31337');
      await new Promise((r) => setTimeout(r, 1500)); // a loop would log again meanwhile
      const warnings = lines.filter((l) => l.level >= 40);
      expect(warnings.map((l) => l.msg)).toEqual([
        'chain replaced: indexing of this chain stopped',
      ]);
      // API-only replicas read the same error from the checkpoint.
      const replica = await checkpointStatusSource(
        db,
        [{ chainId: 31337, name: 'devnet', tags: ['devnet'] }],
        {
          cacheMs: 0,
        },
      ).status();
      expect(replica[0]?.ready).toBe(false);
      expect(replica[0]?.error).toContain('sluice-chain reset 31337');
      expect(replica[0]?.traces).toBe('supported'); // capabilities of the indexed chain
      // reset refuses while a process holds the chain (here: the stopped one keeps its lock).
      const refused: string[] = [];
      const busy = await resetCommand(['31337'], loadConfig({ DATABASE_URL: t.url }), (l) =>
        refused.push(l),
      );
      expect(busy).toBe(1);
      expect(refused.join('')).toMatch(/being indexed by a running sluice-chain process/);
    } finally {
      await indexers.stop();
    }

    // One-shot indexing gives the same error.
    await expect(
      indexOnce({ db, chains: [chain(b.rpcUrl)], log: pino({ level: 'silent' }) }),
    ).rejects.toThrow(/genesis.*sluice-chain reset 31337/);

    const out: string[] = [];
    const config = loadConfig({ DATABASE_URL: t.url });
    expect(await resetCommand(['31337'], config, (l) => out.push(l))).toBe(0);
    expect(out.join('\n')).toMatch(/chain 31337: deleted \d+ rows .*blocks \d+/);
    expect(await resetCommand(['nope'], config, (l) => out.push(l))).toBe(2);
    expect(await resetCommand([], config, (l) => out.push(l))).toBe(2);

    await indexOnce({ db, chains: [chain(b.rpcUrl)], log: pino({ level: 'silent' }) });
    const gt = await checkGroundTruth(db, b.rpcUrl, 31337);
    expect(gt.mismatches).toEqual([]);
    expect(gt.block).toBe(BigInt(await rpcCall<string>(b.rpcUrl, 'eth_blockNumber')));
    await b.stop();
  });

  it('a fork below the undo window stops the chain; on_replaced "reindex" re-indexes it', async () => {
    const t2 = await createTestDatabase('postgres');
    extra.push(t2);
    const db = t2.db;
    await migrate(db, storeMigrations);
    const c = await startAnvil();
    anvils.push(c);
    await mine(c.rpcUrl, 3, 3);
    const snap = await rpcCall<string>(c.rpcUrl, 'evm_snapshot');
    await mine(c.rpcUrl, 15, 4);
    await indexOnce({
      db,
      chains: [chain(c.rpcUrl)],
      log: pino({ level: 'silent' }),
      batchSize: 2,
    });
    await rpcCall(c.rpcUrl, 'evm_revert', [snap]);
    await mine(c.rpcUrl, 18, 5); // same genesis, different history from block 4 on

    const { log } = captureLog();
    const stopped = await startIndexers({ db, chains: [chain(c.rpcUrl)], log, pollIntervalMs: 20 });
    try {
      await waitFor(() => stopped.status()[0]?.error !== undefined);
      expect(stopped.status()[0]?.error).toMatch(/no common ancestor.*stored window/);
    } finally {
      await stopped.stop();
    }

    const indexers = await startIndexers({
      db,
      chains: [chain(c.rpcUrl, { onReplaced: 'reindex' })],
      log: pino({ level: 'silent' }),
      pollIntervalMs: 20,
    });
    try {
      await waitFor(() => indexers.status()[0]?.ready === true);
      expect(indexers.status()[0]?.error).toBeUndefined();
    } finally {
      await indexers.stop();
    }
    const gt = await checkGroundTruth(db, c.rpcUrl, 31337);
    expect(gt.mismatches).toEqual([]);
    expect(gt.checked).toBeGreaterThan(10);
  });
});
