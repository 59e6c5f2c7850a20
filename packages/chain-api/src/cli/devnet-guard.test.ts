import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.js';
import {
  acquireDevnetLock,
  assertPortFree,
  devnetKeyName,
  devnetLockName,
  loadDevnetDemoKey,
} from './devnet-guard.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'devnet-guard-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('devnet lock', () => {
  it('refuses a second holder while the first lives, and is free again after release', () => {
    const dir = tempDir();
    const release = acquireDevnetLock(dir);
    expect(JSON.parse(readFileSync(join(dir, devnetLockName), 'utf8')).pid).toBe(process.pid);
    // A lock held by another live process (the parent of this test runner).
    writeFileSync(join(dir, devnetLockName), `${process.ppid}\n`);
    expect(() => acquireDevnetLock(dir)).toThrow(ConfigError);
    expect(() => acquireDevnetLock(dir)).toThrow(new RegExp(`in use by process ${process.ppid}`));
    writeFileSync(join(dir, devnetLockName), `${process.pid}\n`);
    release();
    acquireDevnetLock(dir)();
  });

  it('takes over a stale lock whose process is gone', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid!;
    await new Promise((resolve) => child.on('exit', resolve));
    writeFileSync(join(dir, devnetLockName), `${pid}\n`);
    const release = acquireDevnetLock(dir);
    expect(JSON.parse(readFileSync(join(dir, devnetLockName), 'utf8')).pid).toBe(process.pid);
    release();
  });
});

describe('port probe', () => {
  it('names a busy port and passes a free one', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await expect(assertPortFree('127.0.0.1', port)).rejects.toThrow(
      `port ${port} on 127.0.0.1 is in use`,
    );
    await new Promise((resolve) => server.close(resolve));
    await assertPortFree('127.0.0.1', port);
    await assertPortFree('127.0.0.1', 0);
  });
});

describe('demo key', () => {
  it('is kept across starts in a 0600 file and replaced when corrupt', () => {
    const dir = tempDir();
    const key = loadDevnetDemoKey(dir);
    expect(key).toMatch(/^sluice_/);
    expect(loadDevnetDemoKey(dir)).toBe(key);
    expect(statSync(join(dir, devnetKeyName)).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, devnetKeyName), 'garbage');
    const fresh = loadDevnetDemoKey(dir);
    expect(fresh).not.toBe(key);
    expect(fresh).toMatch(/^sluice_[A-Za-z0-9_-]{32}$/);
  });
});
