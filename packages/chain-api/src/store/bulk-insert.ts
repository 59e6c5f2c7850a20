import type { Queryable } from '@sluice/db';
import type { CopyColumnKind, CopyQueryable } from './pg-copy.js';

/** A column of a bulk insert: name and PostgreSQL element type (`text`, `numeric`, `bytea`, ...). */
export type BulkColumn = readonly [name: string, type: string];

const CHUNK = 10_000;

/**
 * Inserts many rows: through COPY when the transaction supports it and the insert is a plain
 * append (no `suffix`), else with one `INSERT ... SELECT FROM unnest($1::t[], $2::t[], ...)` per 10k rows:
 * a single round trip and plan regardless of row count, same SQL on PostgreSQL and PGlite.
 * Values are passed as text (numeric/bigint as decimal strings, bytea as 0x-hex, timestamptz as
 * ISO strings, jsonb as JSON text) and cast server-side.
 *
 * @example
 * await bulkInsert(tx, 'blocks', [['chain_id', 'int4'], ['number', 'int8']], [[1, '5']]);
 */
export async function bulkInsert(
  q: Queryable,
  table: string,
  columns: readonly BulkColumn[],
  rows: readonly (readonly unknown[])[],
  suffix = '',
): Promise<void> {
  if (rows.length === 0) return;
  if (!suffix && 'copyRows' in q) {
    // Plain appends on PostgreSQL stream through COPY; only free text is scanned for escapes.
    await (q as CopyQueryable).copyRows(
      table,
      columns.map(([n]) => n),
      rows,
      columns.map(([, type]) => copyKind(type)),
    );
    return;
  }
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const params = columns.map((_, c) => chunk.map((r) => r[c] ?? null));
    const selects = columns.map(([name, type], i) => {
      const arg = `c${i}`;
      return type === 'bytea' ? `decode(substr(${arg}, 3), 'hex') as ${name}` : `${arg} as ${name}`;
    });
    const unnestArgs = columns.map(
      ([, type], i) => `$${i + 1}::${type === 'bytea' ? 'text' : type}[]`,
    );
    const sql = `insert into ${table} (${columns.map(([n]) => n).join(', ')})
      select ${selects.join(', ')} from unnest(${unnestArgs.join(', ')})
      as u(${columns.map((_, i) => `c${i}`).join(', ')}) ${suffix}`;
    await q.query(sql, params);
  }
}

/** Types whose text form never holds a backslash, tab or newline: written to COPY unscanned. */
const PLAIN_TYPES = new Set(['int2', 'int4', 'int8', 'numeric', 'timestamptz', 'bool', 'boolean']);

function copyKind(type: string): CopyColumnKind {
  if (type === 'bytea') return 'bytea';
  return PLAIN_TYPES.has(type) ? 'plain' : 'text';
}
