import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { DatabaseLockedError, lockFolder } from '@sluice/db';
import { ConfigError } from '../config/index.js';
import { generateApiKey } from '../keys/api-key-format.js';

/** Lock file of a running `serve --devnet` in DATA_DIR; holds the owner's pid. */
export const devnetLockName = 'devnet.lock';
/** The devnet demo key, kept in DATA_DIR so it survives restarts (the devnet store does not). */
export const devnetKeyName = 'devnet-demo-key';

/**
 * Fails with a one-line ConfigError when `host:port` cannot be bound, before anything is started
 * or deleted. Port 0 (any free port) always passes.
 *
 * @example
 * await assertPortFree('127.0.0.1', 3100); // throws "port 3100 on 127.0.0.1 is in use ..."
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((done, fail) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      fail(
        new ConfigError(
          'PORT',
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${host} is in use (another \`npm start\` or sluice-chain?); stop it or set PORT`
            : `cannot listen on ${host}:${port}: ${error.message}`,
        ),
      );
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => done()));
  });
}

/**
 * Takes the devnet lock in `dataDir` (`lockFolder` of @sluice/db: atomic, holding this pid), so a
 * second `serve --devnet` cannot wipe the store of a running one. A lock whose process is gone is
 * stale and taken over. Returns the release function.
 *
 * @example
 * const release = acquireDevnetLock('./data'); // throws if another live process holds it
 * release();
 */
export function acquireDevnetLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  try {
    const lock = lockFolder(dataDir, { fileName: devnetLockName });
    return () => lock.release();
  } catch (error) {
    if (!(error instanceof DatabaseLockedError)) throw error;
    throw new ConfigError(
      'DATA_DIR',
      `the devnet store ${resolve(dataDir, 'devnet')} is in use by process ${error.pid} (another \`npm start\`?); stop it first (lock: ${resolve(error.lockFile)})`,
    );
  }
}

/**
 * The devnet demo key: the one stored in `dataDir` from an earlier start, else a new one stored
 * there (mode 0600), so the key printed by `npm start` keeps working across restarts.
 *
 * @example
 * const key = loadDevnetDemoKey('./data'); // same value on the next start
 */
export function loadDevnetDemoKey(dataDir: string): string {
  const path = join(dataDir, devnetKeyName);
  try {
    const stored = readFileSync(path, 'utf8').trim();
    if (/^sluice_[A-Za-z0-9_-]{32}$/.test(stored)) return stored;
  } catch {
    // First start, or unreadable: make a new one.
  }
  mkdirSync(dataDir, { recursive: true });
  const key = generateApiKey();
  // A torn write fails the format check next start and is simply replaced.
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  return key;
}
