import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMigrations } from '../src/store/migrations.js';
import { type CliProcess, startCli } from './support/cli-process.js';
import { addr } from './support/seed-store.js';

const run = promisify(execFile);
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli.ts');
let t: TestDatabase;
const running: CliProcess[] = [];

async function sluice(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', cli, ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.url!, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await t?.drop();
});

describe('sluice-chain CLI', () => {
  it('keys create | list | revoke, and the created key works against serve --no-index', async () => {
    const created = await sluice(['keys', 'create', '--name', 'ci', '--rate-limit', '100']);
    expect(created.code).toBe(0);
    const [key, info] = created.stdout.trim().split('\n');
    expect(key).toMatch(/^sluice_[A-Za-z0-9_-]{32}$/);
    const id = /id (key_[0-9a-f]+)/.exec(info ?? '')?.[1];
    expect(id).toBeDefined();
    // Only the hash is stored.
    const { rows } = await t.db.query<{ key_hash: string }>(
      'select key_hash from api_keys where id = $1',
      [id],
    );
    expect(rows[0]?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(key);

    const listed = await sluice(['keys', 'list']);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('limit=100');
    expect(listed.stdout).not.toContain(key);

    const server = await startCli(['serve', '--no-index'], {
      DATABASE_URL: t.url!,
      RPC_URL_31337: 'http://127.0.0.1:9',
      HOST: '127.0.0.1',
      PORT: '0',
      KEY_CACHE_TTL_MS: '0',
    });
    running.push(server);
    const url = `${server.url}/v1/evm/activity/${addr('cli-wallet')}`;
    expect((await fetch(url, { headers: { 'x-sim-api-key': key! } })).status).toBe(200);

    expect((await sluice(['keys', 'revoke', id!])).code).toBe(0);
    expect((await fetch(url, { headers: { 'x-sim-api-key': key! } })).status).toBe(401);
    const again = await sluice(['keys', 'revoke', id!]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('no active key');
    expect((await sluice(['keys', 'list', '--all'])).stdout).toMatch(new RegExp(`${id}.*revoked=`));
    // Banner and shutdown: SIGTERM exits cleanly.
    expect(server.output()).toContain('API key: create one with `sluice-chain keys create`');
    await server.stop();
    expect(server.child.exitCode).toBe(0);
  }, 180_000);

  it("reset <chainId> deletes one chain's indexed rows; bad ids are refused with the usage", async () => {
    await t.db.query(
      `insert into checkpoints (chain_id, indexed_block, indexed_hash) values (424242, 5, '0xab')`,
    );
    const [done, none, bad] = await Promise.all([
      sluice(['reset', '424242']),
      sluice(['reset', '434343']),
      sluice(['reset', '0x12']),
    ]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('chain 424242: deleted 1 rows (checkpoints 1)');
    expect(none.stdout).toContain('nothing indexed');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('sluice-chain reset <chainId>');
    const { rows } = await t.db.query('select 1 from checkpoints where chain_id = 424242');
    expect(rows).toHaveLength(0);
  }, 120_000);

  it('bad usage and bad configuration exit non-zero with a message naming the problem', async () => {
    const [usage, rate, port, chains, rpc, unknown] = await Promise.all([
      sluice(['keys', 'frobnicate']),
      sluice(['keys', 'create', '--rate-limit', 'lots']),
      sluice(['serve'], { PORT: 'http' }),
      sluice(['serve', '--no-index']),
      sluice(['serve', '--no-index'], { RPC_URL_1: 'ftp://node' }),
      sluice(['launch']),
    ]);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toContain('Usage');
    expect(rate.code).toBe(2);
    expect(rate.stdout).toContain('--rate-limit');
    expect(port.code).toBe(1);
    expect(port.stderr).toContain('PORT must be an integer');
    expect(chains.code).toBe(1);
    expect(chains.stderr).toContain('no chain to index');
    expect(rpc.code).toBe(1);
    expect(rpc.stderr).toContain('RPC_URL_1');
    expect(unknown.code).toBe(2);
  }, 180_000);
});
