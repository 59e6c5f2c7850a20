import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findSqlWrites, sqlWritesOutside } from '../support/find-sql-writes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('statements that write tables or define schema live in src/store', () => {
  it('finds none outside src/store (test files excepted)', () => {
    const outside = sqlWritesOutside(root, 'src', ['src/store/']);
    expect(outside.map((w) => `${w.file}:${w.line}: ${w.statement}`)).toEqual([]);
  });

  it('flags every kind of write and schema statement, on one line or split over two', () => {
    const fixture = [
      "await db.query('insert into tokens (chain_id) values ($1)', [1]);",
      'await tx.query(`update checkpoints set head_block = $2 where chain_id = $1`);',
      '`update nft_holdings h',
      '    set balance = 0`',
      "await db.query('delete from activity where chain_id = $1');",
      '`copy logs (chain_id, data) from stdin`',
      'const ddl = `create unique index x_idx on pools (chain_id, address)`;',
      'const t = `create table subscriptions_outbox (id bigint)`;',
      "const a = 'alter table tokens add column x int';",
      'const f = `create or replace function notify() returns trigger`;',
    ].join('\n');
    expect(findSqlWrites('fixture.ts', fixture).map((w) => w.line)).toEqual([
      1, 2, 3, 5, 6, 7, 8, 9, 10,
    ]);
  });

  it('ignores reads and prose in comments', () => {
    const fixture = [
      "await db.query('select * from activity where chain_id = $1');",
      '// Deletes from the cache, then updates the answer.',
      ' * insert into tokens happens in the store (documentation)',
      "const label = 'update available';",
    ].join('\n');
    expect(findSqlWrites('fixture.ts', fixture)).toEqual([]);
  });
});
