import { describe, expect, it } from 'vitest';
import { parseTrackRequest } from '../../src/api/routes/wallets-track.js';
import { parseChainsFile, resolveChainConfig } from '../../src/chains/index.js';
import { RpcResponseError } from '../../src/rpc/index.js';
import { splitRanges } from '../../src/wallets/log-ranges.js';
import { walletsOptionsFromEnv } from '../../src/wallets/wallets-options.js';

const A = '0x00000000000000000000000000000000000000aa';

describe('wallets mode inputs', () => {
  it('CHAINS_FILE mode: full or wallets, anything else names the field', () => {
    expect(parseChainsFile([{ chain_id: 1, mode: 'wallets' }])[0]?.mode).toBe('wallets');
    expect(parseChainsFile([{ chain_id: 1, mode: 'full' }])[0]?.mode).toBe('full');
    expect(() => parseChainsFile([{ chain_id: 1, mode: 'partial' }])).toThrow(
      /mode.*expected "full" or "wallets", got "partial"/,
    );
    expect(() => parseChainsFile([{ chain_id: 1, mode: 3 }])).toThrow(
      /expected "full" or "wallets"/,
    );
  });

  it('pre-track requests: addresses and wallets-mode chains checked, 400 naming the field', () => {
    const chains = [
      { ...resolveChainConfig(1), mode: 'wallets' as const },
      resolveChainConfig(8453),
    ];
    expect(
      parseTrackRequest({ addresses: [A.toUpperCase().replace('0X', '0x'), A] }, chains),
    ).toEqual({
      wallets: [A],
      chainIds: [1],
    });
    const bad = (body: unknown) => {
      try {
        parseTrackRequest(body, chains);
      } catch (error) {
        return {
          status: (error as { statusCode: number }).statusCode,
          message: (error as Error).message,
        };
      }
      return null;
    };
    expect(bad({})).toEqual({ status: 400, message: expect.stringContaining("'addresses'") });
    expect(bad({ addresses: [] })?.status).toBe(400);
    expect(bad({ addresses: ['0x12'] })?.message).toContain("'addresses[0]'");
    expect(bad({ addresses: [A], chain_ids: [8453] })?.message).toContain("'chain_ids'");
    expect(bad({ addresses: Array.from({ length: 10_001 }, () => A) })?.message).toContain(
      'at most',
    );
    expect(bad(null)?.status).toBe(400);
  });

  it('environment settings are range-checked', () => {
    expect(walletsOptionsFromEnv({}).waitMs).toBe(10_000);
    expect(walletsOptionsFromEnv({ WALLET_BACKFILL_WAIT_MS: '0' }).waitMs).toBe(0);
    expect(() => walletsOptionsFromEnv({ WALLETS_MAX: '0' })).toThrow(
      /WALLETS_MAX must be an integer/,
    );
    expect(() => walletsOptionsFromEnv({ WALLET_BACKFILL_CONCURRENCY: 'lots' })).toThrow(
      /WALLET_BACKFILL_CONCURRENCY/,
    );
  });

  it('log ranges are halved on "too many results" and grow back; other errors propagate', async () => {
    const calls: [bigint, bigint][] = [];
    const refuse = (msg: string) => new RpcResponseError('eth_getLogs', -32005, msg);
    const found = await splitRanges(0n, 99n, 100n, async (a, b) => {
      calls.push([a, b]);
      if (b - a + 1n > 30n) throw refuse('query returned more than 10000 results');
      return [a];
    });
    expect(calls[0]).toEqual([0n, 99n]);
    // Every block covered exactly once by the accepted ranges.
    const accepted = calls.filter(([a, b]) => b - a + 1n <= 30n);
    let next = 0n;
    for (const [a, b] of accepted) {
      expect(a).toBe(next);
      next = b + 1n;
    }
    expect(next).toBe(100n);
    expect(found.length).toBe(accepted.length);
    // A fixed limit (anvil's trace_filter: 300 blocks) is not hit every other call: the
    // refused span waits for 8 successes before it is tried again.
    let refusals = 0;
    let queries = 0;
    await splitRanges(0n, 199_999n, 100_000n, async (a, b) => {
      queries++;
      if (b - a + 1n > 300n) {
        refusals++;
        throw refuse('block range too large: max 300');
      }
      return [];
    });
    expect(queries).toBeLessThan(1_300);
    expect(refusals).toBeLessThan(queries / 7);
    await expect(
      splitRanges(0n, 9n, 10n, async () => {
        throw refuse('execution reverted');
      }),
    ).rejects.toThrow(/execution reverted/);
    // A single block the node still refuses is an error, not a loop.
    await expect(
      splitRanges(5n, 5n, 10n, async () => {
        throw refuse('query returned more than 10000 results');
      }),
    ).rejects.toThrow(/more than 10000/);
  });
});

describe('sluice-chain wallets', () => {
  it('track (args and --file with comments) then status; bad addresses, chains and files refused', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { walletsCommand } = await import('../../src/cli/wallets-command.js');
    const { loadConfig } = await import('../../src/config/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'sluice-wallets-cli-'));
    try {
      writeFileSync(
        join(dir, 'chains.json'),
        JSON.stringify([{ chain_id: 31337, rpc_url: 'http://127.0.0.1:1', mode: 'wallets' }]),
      );
      writeFileSync(
        join(dir, 'list.txt'),
        `${A}\n# a comment\n${A.replace('aa', 'bb')}  # trailing\n`,
      );
      const config = loadConfig({
        DATA_DIR: join(dir, 'data'),
        CHAINS_FILE: join(dir, 'chains.json'),
      });
      const run = async (args: string[]) => {
        const lines: string[] = [];
        const code = await walletsCommand(args, config, (l) => lines.push(l));
        return { code, out: lines.join('\n') };
      };
      expect(await run(['track', '--file', join(dir, 'list.txt'), A.replace('aa', 'CC')])).toEqual({
        code: 0,
        out: 'chain 31337: 3 wallets tracked (backfilled by the running indexer)',
      });
      expect(await run(['status'])).toEqual({ code: 0, out: 'chain 31337: pending 3' });
      expect((await run(['track', '0x12'])).code).toBe(2);
      expect((await run(['track', '--chain', '1', A])).out).toContain('31337');
      expect((await run(['track', '--file', join(dir, 'none.txt')])).code).toBe(1);
      expect((await run(['track'])).out).toContain('no addresses');
      expect((await run([])).code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
