import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DatabaseError } from './database-error.js';

/** File that marks a PGlite data folder as open by one process. */
export const lockFileName = '.sluice.lock';

/** Another live process has the PGlite data folder open. */
export class DatabaseLockedError extends DatabaseError {
  override readonly name: string = 'DatabaseLockedError';
  readonly dataDir: string;
  /** Process id of the holder, as written in the lock file. */
  readonly pid: number;
  readonly lockFile: string;

  constructor(dataDir: string, pid: number, lockFile: string) {
    super(
      `PGlite data folder ${dataDir} is in use by process ${pid}`,
      `only one process may open it at a time (stop that process, or use PostgreSQL with ` +
        `DATABASE_URL for several processes); if process ${pid} is not using it, delete ${lockFile}`,
    );
    this.dataDir = dataDir;
    this.pid = pid;
    this.lockFile = lockFile;
  }
}

interface LockContent {
  pid: number;
  host: string;
  token: string;
}

// Tokens of the locks this process holds, to tell them from a stale lock left by the same pid.
const heldTokens = new Set<string>();

/** An exclusive hold on a folder; `release()` is idempotent. */
export interface FolderLock {
  release(): void;
}

function readLock(file: string): LockContent | undefined {
  try {
    const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
    // A bare pid is the format of lock files written by earlier versions.
    const parsed = (typeof raw === 'number' ? { pid: raw } : (raw ?? {})) as Partial<LockContent>;
    if (typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0) {
      return {
        pid: parsed.pid,
        host: typeof parsed.host === 'string' ? parsed.host : '',
        token: typeof parsed.token === 'string' ? parsed.token : '',
      };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the exclusive lock on `dir` (a PGlite data folder): `.sluice.lock` holding this process'
 * pid, created atomically (written aside, then hard-linked into place, which fails if it exists).
 * A lock whose pid is dead or whose file is unreadable is stale and taken over. Pids are checked
 * on this machine only: processes on other hosts sharing the folder are not detected.
 * Released by `release()` or when the process exits; a killed process leaves a stale lock that
 * the next opener recovers.
 *
 * `options.fileName` names another lock file, for a second kind of holder of the same folder.
 *
 * @example
 * const lock = lockFolder('./data'); // throws DatabaseLockedError if another process holds it
 * lock.release();
 */
export function lockFolder(dir: string, options: { fileName?: string } = {}): FolderLock {
  const file = join(dir, options.fileName ?? lockFileName);
  const token = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const content: LockContent = { pid: process.pid, host: hostname(), token };
  const temp = `${file}.${token}`;
  writeFileSync(temp, `${JSON.stringify(content)}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temp, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
      }
      let holder: LockContent | undefined;
      try {
        holder = readLock(file);
      } catch {
        continue; // vanished between link and read: try again
      }
      // Our own pid but not our token: a previous life of this pid (e.g. pid 1 in a restarted
      // container) crashed, unless another open in this process holds it.
      const held = holder
        ? holder.pid === process.pid
          ? heldTokens.has(holder.token)
          : alive(holder.pid)
        : false;
      if (holder && held) throw new DatabaseLockedError(dir, holder.pid, file);
      // Stale: remove only if it is still the very file we judged (another opener may have
      // recovered it meanwhile).
      const again = (() => {
        try {
          return readLock(file);
        } catch {
          return undefined;
        }
      })();
      if (again?.token === holder?.token) {
        try {
          unlinkSync(file);
        } catch {}
      }
    }
  } finally {
    try {
      unlinkSync(temp);
    } catch {}
  }

  heldTokens.add(token);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldTokens.delete(token);
    process.removeListener('exit', release);
    try {
      if (readLock(file)?.token === token) unlinkSync(file);
    } catch {}
  };
  process.on('exit', release);
  return { release };
}
