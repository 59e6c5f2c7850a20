import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockFileName } from '../src/folder-lock.js';
import { DatabaseLockedError, lockFolder, openDatabase } from '../src/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'sluice-db-lock-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A process that lives until killed, to stand in for another opener. */
async function otherProcess() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

describe('PGlite folder lock', () => {
  it('refuses a second open of the same folder and frees it on close', async () => {
    const dir = mkdtempSync(join(tmp, 'same-'));
    const first = await openDatabase({ dataDir: dir });
    const lock = JSON.parse(readFileSync(join(dir, lockFileName), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(process.pid);
    const second = await openDatabase({ dataDir: dir }).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(DatabaseLockedError);
    expect((second as Error).message).toContain(dir);
    expect((second as Error).message).toContain(`process ${process.pid}`);
    await first.close();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
    const again = await openDatabase({ dataDir: dir });
    await again.query('select 1');
    await again.close();
  });

  it('names a live holder and recovers the lock once that process is dead', async () => {
    const dir = mkdtempSync(join(tmp, 'stale-'));
    const holder = await otherProcess();
    const pid = holder.pid ?? 0;
    writeFileSync(join(dir, lockFileName), JSON.stringify({ pid, host: 'h', token: 'x' }));
    const refused = await openDatabase({ dataDir: dir }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DatabaseLockedError);
    expect((refused as DatabaseLockedError).pid).toBe(pid);
    expect((refused as Error).message).toContain(`${dir} is in use by process ${pid}`);

    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const db = await openDatabase({ dataDir: dir });
    expect(JSON.parse(readFileSync(join(dir, lockFileName), 'utf8')).pid).toBe(process.pid);
    await db.close();
  });

  it('takes over a lock left by an earlier life of its own pid, and an unreadable one', async () => {
    const dir = mkdtempSync(join(tmp, 'own-'));
    writeFileSync(join(dir, lockFileName), JSON.stringify({ pid: process.pid, token: 'old' }));
    const db = await openDatabase({ dataDir: dir });
    await db.close();
    writeFileSync(join(dir, lockFileName), 'garbage');
    const db2 = await openDatabase({ dataDir: dir });
    await db2.close();
  });

  it('leaves memory:// unlocked', async () => {
    const a = await openDatabase({ dataDir: 'memory://' });
    const b = await openDatabase({ dataDir: 'memory://' });
    await Promise.all([a.close(), b.close()]);
  });

  it('takes another lock file name, and reads a bare pid (the older format) as its holder', async () => {
    const dir = mkdtempSync(join(tmp, 'named-'));
    const holder = await otherProcess();
    try {
      writeFileSync(join(dir, 'other.lock'), `${holder.pid}\n`);
      expect(() => lockFolder(dir, { fileName: 'other.lock' })).toThrow(
        new RegExp(`in use by process ${holder.pid}`),
      );
      // A differently named lock of the same folder is independent.
      lockFolder(dir).release();
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
    const lock = lockFolder(dir, { fileName: 'other.lock' });
    expect(JSON.parse(readFileSync(join(dir, 'other.lock'), 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(join(dir, 'other.lock'))).toBe(false);
  });
});
