import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { nftConfigFromEnv } from '../config/nft-config.js';
import { defaultRetrySchedule, retryDelay } from './backoff.js';
import { describeError, SafeFetchError } from './errors.js';
import { forEachConcurrent, KeyedLimiter } from './keyed-limiter.js';
import { startNftWorker } from './start-nft-worker.js';

const a = '0x00000000000000000000000000000000000000aa';

describe('retryDelay', () => {
  it('doubles from 1 minute and caps at 24 hours, with ±10 % jitter', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4].map((n) => retryDelay(n, defaultRetrySchedule, mid))).toEqual([
      60_000, 120_000, 240_000, 480_000,
    ]);
    expect(retryDelay(30, defaultRetrySchedule, mid)).toBe(86_400_000);
    expect(retryDelay(10_000, defaultRetrySchedule, mid)).toBe(86_400_000);
    expect(retryDelay(1, defaultRetrySchedule, () => 0)).toBe(54_000);
    expect(retryDelay(1, defaultRetrySchedule, () => 1)).toBe(66_000);
  });
});

describe('KeyedLimiter', () => {
  it('runs at most `limit` tasks per key, keys independently', async () => {
    const limiter = new KeyedLimiter(2);
    const active = new Map<string, number>();
    const peak = new Map<string, number>();
    const task = (key: string) =>
      limiter.run(key, async () => {
        active.set(key, (active.get(key) ?? 0) + 1);
        peak.set(key, Math.max(peak.get(key) ?? 0, active.get(key) ?? 0));
        await new Promise((r) => setTimeout(r, 5));
        active.set(key, (active.get(key) ?? 0) - 1);
      });
    await Promise.all([...Array(10)].flatMap(() => [task('a'), task('b')]));
    expect(peak.get('a')).toBe(2);
    expect(peak.get('b')).toBe(2);
    await expect(limiter.run('a', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await limiter.run('a', async () => 7)).toBe(7); // a failure released its slot
  });

  it('forEachConcurrent bounds concurrency and visits every item', async () => {
    let active = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachConcurrent([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 2));
      seen.push(n);
      active--;
    });
    expect(peak).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('describeError', () => {
  it('renders codes, first lines, and bounds the length', () => {
    expect(describeError(new SafeFetchError('TIMEOUT', 'slow', 'http://x'))).toBe(
      'TIMEOUT: slow: http://x',
    );
    expect(describeError(new Error('line one\nline two'))).toBe('line one');
    expect(describeError(Object.assign(new Error('long'), { shortMessage: 'short' }))).toBe(
      'short',
    );
    expect(describeError('x'.repeat(2_000))).toHaveLength(500);
    // Cut in code points: an error text full of emoji never ends in half of one.
    const emoji = describeError(`${'😀'.repeat(600)}`);
    expect(emoji).toBe(`${'😀'.repeat(497)}...`);
    expect(describeError(new Error('bad \uD83D'))).toBe('bad \uFFFD');
  });
});

describe('startNftWorker options', () => {
  it('rejects a non-positive discovery window and a negative debounce before starting', async () => {
    const base = { db: {} as never, chains: [], log: pino({ level: 'silent' }) };
    await expect(startNftWorker({ ...base, discoveryBlocks: 0 })).rejects.toThrow(
      /discoveryBlocks must be a positive integer/,
    );
    await expect(startNftWorker({ ...base, spamEvidenceDebounceMs: -1 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('nftConfigFromEnv', () => {
  it('reads every variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nft-deny-'));
    const file = join(dir, 'deny.txt');
    writeFileSync(
      file,
      `# scam list\n1:${a}\n\n0x00000000000000000000000000000000000000bb # trailing comment\n`,
    );
    expect(
      nftConfigFromEnv({
        NFT_IPFS_GATEWAY: 'https://gw.example',
        NFT_ARWEAVE_GATEWAY: 'https://ar.example',
        NFT_ALLOW_PRIVATE_HOSTS: 'true',
        NFT_ALLOW_HOSTS: '127.0.0.1:8080, meta.local',
        NFT_CONCURRENCY: '16',
        NFT_PER_HOST_CONCURRENCY: '2',
        NFT_URI_RECHECK_MS: '3600000',
        NFT_FETCH_TIMEOUT_MS: '5000',
        NFT_MAX_BYTES: '100000',
        NFT_SPAM_THRESHOLD: '60',
        NFT_SPAM_DENYLIST: `10:${a}`,
        NFT_SPAM_DENYLIST_FILE: file,
        NFT_SPAM_OVERRIDES: `${a}=not_spam,5:${a}=spam`,
      }),
    ).toEqual({
      ipfsGateway: 'https://gw.example',
      arweaveGateway: 'https://ar.example',
      allowPrivateHosts: true,
      allowHosts: ['127.0.0.1:8080', 'meta.local'],
      concurrency: 16,
      perHostConcurrency: 2,
      recheckIntervalMs: 3600000,
      fetchTimeoutMs: 5000,
      maxBytes: 100000,
      spamThreshold: 60,
      denyList: [`10:${a}`, `1:${a}`, '0x00000000000000000000000000000000000000bb'],
      spamOverrides: [
        [a, 'not_spam'],
        [`5:${a}`, 'spam'],
      ],
    });
    expect(nftConfigFromEnv({})).toEqual({});
  });

  it.each([
    ['NFT_ALLOW_PRIVATE_HOSTS', 'yes'],
    ['NFT_CONCURRENCY', '0'],
    ['NFT_CONCURRENCY', '1.5'],
    ['NFT_URI_RECHECK_MS', '5'],
    ['NFT_SPAM_THRESHOLD', '101'],
    ['NFT_FETCH_TIMEOUT_MS', 'abc'],
    ['NFT_SPAM_DENYLIST', 'ethereum:0x12'],
    ['NFT_SPAM_DENYLIST_FILE', '/nonexistent/deny.txt'],
    ['NFT_SPAM_OVERRIDES', `${a}=maybe`],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => nftConfigFromEnv({ [name]: value })).toThrow(new RegExp(name));
  });
});
