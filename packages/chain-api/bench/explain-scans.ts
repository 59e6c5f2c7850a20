/**
 * Query plans of the token endpoints and the token-filtered activity feed on a large seeded
 * store, before and after the totals and index of `src/store/token-totals.ts`:
 * `tsx bench/explain-scans.ts` (TEST_DATABASE_URL; heavy: run once). Seeds with
 * `generate_series` (no indexer): `SCANS_ACTIVITY_ROWS` activity rows (default 10,000,000, a
 * whale holding a tenth of them, all of one common token but 5 rows of a rare one),
 * `SCANS_HOLDERS` holders of one ERC20 (default 1,000,000) and `SCANS_NFT_ITEMS` items of one
 * collection (default 200,000, over 50,000 holders). Migrates every migration but the totals
 * first, prints EXPLAIN (ANALYZE, BUFFERS) of the old statements, applies the totals migration
 * (timed: it builds the totals and the index from the seeded rows) and prints the new ones.
 */
import type { Queryable, QueryResult } from '@sluice/db';
import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import { selectActivity } from '../src/api/queries/activity-query.js';
import { selectNftHolders } from '../src/api/queries/token-holders-query.js';
import { selectTokenInfo } from '../src/api/queries/token-info-query.js';
import { storeMigrations } from '../src/store/migrations.js';
import { tokenTotalsMigrations } from '../src/store/token-totals.js';

const ACTIVITY = Number(process.env.SCANS_ACTIVITY_ROWS ?? 10_000_000);
const HOLDERS = Number(process.env.SCANS_HOLDERS ?? 1_000_000);
const NFT_ITEMS = Number(process.env.SCANS_NFT_ITEMS ?? 200_000);
const WHALE = `0x${'a'.repeat(40)}`;
const COMMON = `0x${'c'.repeat(40)}`;
const RARE = `0x${'d'.repeat(40)}`;
const COLLECTION = `0x${'e'.repeat(40)}`;

/** A Queryable that prints the plan (and time) of each statement instead of its rows. */
function explaining(db: Queryable, label: string): Queryable {
  return {
    async query<Row>(sql: string, params?: unknown[]): Promise<QueryResult<Row>> {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers, costs off) ${sql}`,
        params,
      );
      process.stdout.write(`\n## ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
      return { rows: [], rowCount: 0 };
    },
  } as Queryable;
}

async function timed(label: string, fn: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  await fn();
  process.stdout.write(`${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

/** Bulk rows with generate_series: activity, one ERC20's holders, one collection's items. */
async function seed(db: Queryable): Promise<void> {
  const whaleRows = Math.floor(ACTIVITY / 10);
  await timed(`seed ${ACTIVITY} activity rows`, () =>
    db.query(
      `insert into activity (chain_id, wallet, block_time, block_number, tx_index, log_index,
                             sub_index, tx_hash, type, asset_type, token_address, from_address,
                             to_address, value)
       select 1,
              case when g <= $2 then $3 else '0x' || lpad(to_hex(g % 1000003), 40, '0') end,
              timestamptz '2020-01-01' + g * interval '1 second', g, 0, 0, 0,
              '0x' || lpad(to_hex(g), 64, '0'), 'receive', 'erc20',
              case when g <= $2 and g % ($2 / 5) = 0 then $5
                   when g <= $2 then $4
                   else '0x' || lpad(to_hex(g % 5003), 40, '0') end,
              '0x' || lpad(to_hex(g % 7), 40, '0'), null, g
         from generate_series(1, $1) g`,
      [ACTIVITY, whaleRows, WHALE, COMMON, RARE],
    ),
  );
  await timed(`seed ${HOLDERS} holders of one ERC20`, () =>
    db.query(
      `insert into erc20_balances (chain_id, wallet, token, amount, updated_block)
       select 1, '0x' || lpad(to_hex(g), 40, '0'), $2, g, 1 from generate_series(1, $1) g`,
      [HOLDERS, COMMON],
    ),
  );
  await timed(`seed ${NFT_ITEMS} items of one collection`, () =>
    db.query(
      `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance,
                                 last_acquired, last_acquired_block, updated_block)
       select '0x' || lpad(to_hex(g % 50000), 40, '0'), 1, $2, g, 'erc721', 1,
              timestamptz '2021-01-01' + g * interval '1 minute', g, g
         from generate_series(1, $1) g`,
      [NFT_ITEMS, COLLECTION],
    ),
  );
  await db.query(
    `insert into tokens (chain_id, address, standard, name, symbol, decimals, first_block)
     values (1, $1, 'erc20', 'Common', 'CMN', 18, 0), (1, $2, 'erc20', 'Rare', 'RARE', 18, 0),
            (1, $3, 'erc721', 'Items', 'ITM', null, 0)
     on conflict do nothing`,
    [COMMON, RARE, COLLECTION],
  );
  await timed('analyze', () => db.query('analyze'));
}

async function main() {
  const t = await createTestDatabase('postgres');
  try {
    const before = storeMigrations.filter((m) => !tokenTotalsMigrations.includes(m));
    await migrate(t.db, before);
    await seed(t.db);
    process.stdout.write('\n# Before (statements as they were)\n');
    await explaining(t.db, 'token-info total_supply: sum of every holder').query(
      `select (select coalesce(sum(b.amount), 0)::text from erc20_balances b
                where b.chain_id = $1 and b.token = $2 and b.amount > 0) as total_supply`,
      [1, COMMON],
    );
    await explaining(t.db, 'token-holders of a collection, first page of 100').query(
      `select n.wallet, sum(n.balance) as amount, extract(epoch from min(n.last_acquired))::float8
         from nft_holdings n
        where n.chain_id = $1 and n.contract = $2 and n.balance > 0
        group by n.wallet order by amount desc, n.wallet limit $3`,
      [1, COLLECTION, 100],
    );
    await explaining(t.db, 'activity?token_address=<rare> of the whale, limit 20').query(
      `select a.* from activity a
        where a.wallet = $1 and a.chain_id = any($2::int[]) and a.token_address = any($3::text[])
        order by a.block_time desc, a.chain_id desc, a.block_number desc, a.tx_index desc,
                 a.log_index desc, a.sub_index desc
        limit $4`,
      [WHALE, [1], [RARE], 21],
    );
    process.stdout.write('\n# Migration\n');
    await timed('token totals migration (totals built from the seeded rows, activity index)', () =>
      migrate(t.db, storeMigrations),
    );
    await t.db.query('analyze');
    process.stdout.write("\n# After (the endpoints' statements now)\n");
    await selectTokenInfo(explaining(t.db, 'token-info with total_supply'), 1, COMMON, true);
    await selectNftHolders(explaining(t.db, 'token-holders of a collection, first page of 100'), {
      chainId: 1,
      token: COLLECTION,
      limit: 100,
    });
    await selectActivity(explaining(t.db, 'activity?token_address=<rare> of the whale, limit 20'), {
      wallet: WHALE,
      chainIds: [1],
      tokens: [RARE],
      limit: 21,
    });
    await selectActivity(
      explaining(t.db, 'activity?token_address=<common>,<rare> of the whale, limit 20'),
      { wallet: WHALE, chainIds: [1], tokens: [COMMON, RARE], limit: 21 },
    );
    const { rows } = await t.db.query<{ supply: string; holders: string }>(
      'select supply::text, holders::text from token_supply where chain_id = 1 and token = $1',
      [COMMON],
    );
    process.stdout.write(`\ntoken_supply of the common token: ${JSON.stringify(rows[0])}\n`);
  } finally {
    await t.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
