import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { slowFirstSequencer } from './test/support/slow-first-sequencer.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The slowest files (half a minute to several minutes each on 2 cores), started first so that no
 * long file is left running alone at the end. Each is a file, or a folder ending with '/'.
 */
const slow = [
  'test/wallets/wallets-mode.test.ts',
  'test/limits/nft-big-uri.test.ts',
  'test/subscriptions/',
  'test/scoped-invalidation.test.ts',
  'src/nft/stores.test.ts',
  'src/nft/nft-devnet.test.ts',
  'src/pricing/worker/price-worker.test.ts',
  'src/devnet/scenario.test.ts',
  'test/indexer/contract-probes.test.ts',
  'test/indexer/',
  'test/limits/',
  'test/activity-route.test.ts',
  'test/nft-spam-any-chain.test.ts',
  'test/devnet-e2e.test.ts',
  'test/balances-route.test.ts',
];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // One file at a time on 2 cores (vitest's default there): measured in a full CI run, two
    // workers took the suite from 625 s to 1,150 s and broke time-bounded tests (anvil,
    // PostgreSQL and the tests contend for the same cores). VITEST_MAX_WORKERS overrides.
    sequence: { sequencer: slowFirstSequencer(root, slow) },
    // Files share one worker's module graph instead of re-importing it (viem, Fastify, pg, the
    // store) for each of ~160 files: measured 645 s against 930-1,220 s for the whole suite, all
    // passing. No test mocks modules or patches globals; each file has its own schema, servers
    // and anvil, and closes them.
    isolate: false,
  },
});
