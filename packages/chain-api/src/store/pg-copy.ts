import { once } from 'node:events';
import type { Database, Queryable } from '@sluice/db';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A transaction that can also stream rows with COPY (PostgreSQL only). */
export interface CopyQueryable extends Queryable {
  copyRows(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly unknown[])[],
    kinds?: readonly CopyColumnKind[],
  ): Promise<void>;
}

/** Escapes text for COPY's text format (backslash, tab, newline, CR). */
function escapeText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** True when `s` holds a character COPY's text format must escape (a loop beats a regex here). */
function needsEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 || c === 9 || c === 10 || c === 13) return true;
  }
  return false;
}

/**
 * How `copyLine` writes a column: `text` is checked and escaped, `plain` (numbers, timestamps,
 * booleans: never a backslash or control character) is written as is, `bytea` is a 0x-hex string
 * written as COPY's escaped `\\x` hex form without scanning it (transaction inputs are large).
 */
export type CopyColumnKind = 'text' | 'plain' | 'bytea';

/** One row in COPY's text format (NULL as \N); string concatenation, no per-field arrays. */
export function copyLine(row: readonly unknown[], kinds?: readonly CopyColumnKind[]): string {
  let line = '';
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (i > 0) line += '\t';
    if (v === null || v === undefined) line += '\\N';
    else if (typeof v === 'number') line += v;
    else {
      const text = typeof v === 'string' ? v : String(v);
      const kind = kinds?.[i] ?? 'text';
      if (kind === 'plain') line += text;
      else if (kind === 'bytea' && HEX.test(text)) line += `\\\\x${text.slice(2)}`;
      else line += needsEscape(text) ? escapeText(text) : text;
    }
  }
  return `${line}\n`;
}

/** A well-formed 0x-hex string (a node's answer is not trusted to be one). */
const HEX = /^0x[0-9a-fA-F]*$/;

/** Bytes handed to the COPY stream at a time: big enough to amortise, small enough to overlap. */
const COPY_CHUNK_CHARS = 1 << 18;

/**
 * Runs `fn` in one transaction. On PostgreSQL it holds its own pooled client so large inserts can
 * use COPY (`copyRows`, several times faster than INSERT for the big append-only tables); on
 * PGlite it is `db.transaction`. Commits when `fn` resolves, rolls back when it throws.
 */
export async function withCopyTransaction<T>(
  db: Database,
  fn: (tx: Queryable | CopyQueryable) => Promise<T>,
): Promise<T> {
  if (db.kind !== 'postgres' || !db.pgPool) return db.transaction(fn);
  const client: pg.PoolClient = await db.pgPool.connect();
  const tx: CopyQueryable = {
    async query<Row>(sql: string, params?: unknown[]) {
      const r = await client.query(sql, params);
      return { rows: r.rows as Row[], rowCount: r.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    async copyRows(table, columns, rows, kinds) {
      if (rows.length === 0) return;
      const stream = client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`));
      const done = new Promise<void>((resolve, reject) => {
        stream.on('finish', resolve);
        stream.on('error', reject);
      });
      // Serialise chunk by chunk and wait for the socket to drain, so PostgreSQL ingests one
      // chunk while the next is built (two cores busy instead of one after the other).
      let failed = false;
      done.catch(() => {
        failed = true;
      });
      let chunk = '';
      for (const r of rows) {
        chunk += copyLine(r, kinds);
        if (chunk.length >= COPY_CHUNK_CHARS) {
          const flushed = stream.write(chunk);
          chunk = '';
          if (!flushed) await Promise.race([once(stream, 'drain'), done]);
          if (failed) break;
        }
      }
      stream.end(chunk);
      await done;
    },
  };
  let broken = false;
  try {
    await client.query('begin');
    // Atomicity is untouched; a server crash may only lose the last commits, together with their
    // checkpoint, and they are simply re-indexed.
    // jit off: a batch's statements are key look-ups and appends; compiling one (planned above
    // jit_above_cost while a table has no statistics yet) costs ~100 ms and saves nothing.
    await client.query('set local synchronous_commit = off; set local jit = off');
    const value = await fn(tx);
    await client.query('commit');
    return value;
  } catch (error) {
    await client.query('rollback').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
