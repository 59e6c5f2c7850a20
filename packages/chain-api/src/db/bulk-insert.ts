import type { Queryable } from '@sluice/db';
import type { CopyQueryable } from './pg-copy.js';

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
    // Plain appends on PostgreSQL stream through COPY; bytea goes as \x-hex text.
    const bytea = columns.map(([, type]) => type === 'bytea');
    const converted = bytea.some(Boolean)
      ? rows.map((r) =>
          r.map((v, i) => (bytea[i] && typeof v === 'string' ? `\\x${v.slice(2)}` : v)),
        )
      : rows;
    await (q as CopyQueryable).copyRows(
      table,
      columns.map(([n]) => n),
      converted,
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
