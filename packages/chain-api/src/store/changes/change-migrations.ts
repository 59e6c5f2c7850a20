import type { Migration } from '@sluice/db';
import { CHANGE_KEY_LENGTH } from './store-change.js';

/** Keys per trigger message (with the envelope, under PostgreSQL's 8,000-byte limit). */
const KEYS_PER_MESSAGE = Math.floor(7_000 / CHANGE_KEY_LENGTH);
/** Messages per chain and statement before a list widens to its chain-level form. */
const MAX_TRIGGER_MESSAGES = 8;

/**
 * Tables with row-aware statement triggers: each write names the chains and keys it touched (from
 * the statement's transition table), whoever wrote it: pricing, the NFT worker, a reorg rollback,
 * an operator. `field` is the change field; `overflow` what a too-long list widens to; `served`
 * the columns answers read (an UPDATE changing none of them notifies nothing); `insertServed`,
 * when set, the condition under which an inserted row changes an answer (a pending metadata row
 * with no values shows the same as no row).
 */
const preciseTables = [
  {
    table: 'token_prices',
    key: 'token',
    field: 'p',
    overflow: '"pa":1',
    served: ['price_usd', 'pool_size', 'low_liquidity', 'pool_type', 'pool_address', 'pool_tokens'],
    pk: ['chain_id', 'token'],
  },
  {
    table: 'price_history',
    key: 'token',
    field: 'h',
    overflow: '"ha":1',
    since: 'time',
    served: ['price_usd', 'quote', 'price_in_quote', 'time'],
    pk: ['chain_id', 'token', 'time', 'block_number'],
  },
  {
    table: 'nft_metadata',
    key: 'contract',
    field: 'n',
    overflow: '"all":1',
    served: ['uri', 'name', 'description', 'image_url', 'attributes'],
    insertServed:
      'uri is not null or name is not null or description is not null or image_url is not null or attributes is not null',
    pk: ['chain_id', 'contract', 'token_id'],
  },
  {
    table: 'nft_collections',
    key: 'contract',
    field: 'n',
    overflow: '"all":1',
    served: ['name', 'symbol', 'spam_score', 'is_spam', 'spam_explanations'],
    insertServed:
      'name is not null or symbol is not null or spam_score is not null or is_spam or spam_explanations is not null',
    // A verdict that flips adds or removes the collection from every filter_spam answer.
    spamColumn: 'is_spam',
    pk: ['chain_id', 'contract'],
  },
  {
    table: 'nft_sales',
    key: 'contract',
    field: 'n',
    overflow: '"all":1',
    served: ['price', 'block_number', 'log_index', 'contract', 'token_id'],
    pk: ['chain_id', 'block_number', 'log_index', 'token_id'],
  },
] as const;

type PreciseTable = (typeof preciseTables)[number];

/** `select chain_id, keys, since, spam` over the rows `rows` that changed something served. */
function changedRows(t: PreciseTable, op: 'insert' | 'update' | 'delete'): string {
  const since = 'since' in t ? `min(extract(epoch from r.${t.since}))::float8` : 'null::float8';
  const spam = 'spamColumn' in t && op !== 'update' ? `bool_or(r.${t.spamColumn})` : 'false';
  if (op === 'update') {
    const join = t.pk.map((c) => `o.${c} = r.${c}`).join(' and ');
    const differs = `(${t.served.map((c) => `r.${c}`).join(', ')}) is distinct from (${t.served.map((c) => `o.${c}`).join(', ')})`;
    // An update may move rows to other keys (or from them): both sides count.
    const spamFlip =
      'spamColumn' in t ? `bool_or(r.${t.spamColumn} is distinct from o.${t.spamColumn})` : 'false';
    const oldSince =
      'since' in t ? `least(${since}, min(extract(epoch from o.${t.since}))::float8)` : since;
    return `select r.chain_id,
              array(select distinct unnest(array_agg(sluice_change_key(r.${t.key})) || array_agg(sluice_change_key(o.${t.key})))) as keys,
              ${oldSince} as since, ${spamFlip} as spam
         from changed_rows r join old_rows o on ${join}
        where ${differs}
        group by r.chain_id`;
  }
  const served = op === 'insert' && 'insertServed' in t ? `where ${t.insertServed}` : '';
  return `select r.chain_id, array_agg(distinct sluice_change_key(r.${t.key})) as keys,
            ${since} as since, ${spam} as spam
       from changed_rows r ${served} group by r.chain_id`;
}

function preciseFunction(t: PreciseTable, op: 'insert' | 'update' | 'delete'): string {
  return `
    create or replace function sluice_${t.table}_${op}_changed() returns trigger
    language plpgsql as $fn$
    declare
      chg record;
      extra text;
      n int;
    begin
      for chg in ${changedRows(t, op)} loop
        extra := case when chg.since is null then '' else format(',"hs":%s', chg.since) end
              || case when chg.spam then ',"spam":1' else '' end;
        n := cardinality(chg.keys);
        if n > ${KEYS_PER_MESSAGE * MAX_TRIGGER_MESSAGES} then
          perform sluice_notify_store_change(tg_table_schema,
            format('"c":[{"id":%s,${t.overflow}%s}]', chg.chain_id, extra));
          continue;
        end if;
        for i in 1..n by ${KEYS_PER_MESSAGE} loop
          perform sluice_notify_store_change(tg_table_schema, format('"c":[{"id":%s,"${t.field}":"%s"%s}]',
            chg.chain_id, array_to_string(chg.keys[i:i + ${KEYS_PER_MESSAGE - 1}], ''), extra));
        end loop;
      end loop;
      return null;
    end
    $fn$;
    create trigger ${t.table}_${op}_changed after ${op} on ${t.table}
      referencing ${op === 'delete' ? 'old' : 'new'} table as changed_rows${op === 'update' ? ' old table as old_rows' : ''}
      for each statement execute function sluice_${t.table}_${op}_changed();`;
}

/**
 * The SQL side of the notification format: the key of an address and the envelope (schema, WAL
 * position). Part of the indexer's own migrations, since its writer publishes with them even in
 * a store without the API's tables.
 */
export const changeFunctionMigrations: Migration[] = [
  {
    id: 'chain-004-store-change-notify',
    sql: `
      create or replace function sluice_change_key(address text) returns text
      language sql immutable as $fn$
        select case when left(address, 2) = '0x' then lower(substr(address, 3, ${CHANGE_KEY_LENGTH}))
                    else rpad(lower(address), ${CHANGE_KEY_LENGTH}, '_') end
      $fn$;

      -- The envelope every notification shares; lsn null on PGlite (no replication there).
      create or replace function sluice_notify_store_change(store_schema text, body text) returns void
      language plpgsql as $fn$
      declare
        lsn text := 'null';
      begin
        if version() not like '%PGlite%' then
          lsn := to_json(pg_current_wal_lsn()::text)::text;
        end if;
        perform pg_notify('sluice_store_changed',
          format('{"v":1,"s":%s,"lsn":%s,%s}', to_json(store_schema)::text, lsn, body));
      end
      $fn$;

    `,
  },
];

/**
 * Scoped change notifications, so a cache drops only what a write touched. The served tables' statement triggers (api-002,
 * api-sim-001) stay for the indexer's high-volume tables, but send nothing when the transaction
 * announced its own precise change (`announceStoreChange`), and otherwise one coarse
 * `{"all":1}` per transaction. The pricing and NFT tables get row-aware triggers that name
 * the tokens and collections each statement changed. Format: src/store/changes/store-change.ts.
 */
export const changeMigrations: Migration[] = [
  {
    id: 'changes-001-scoped-notifications',
    sql: `
      -- Writers that did not announce their change: "anything may have changed", once per
      -- transaction.
      create or replace function sluice_store_changed() returns trigger
      language plpgsql as $fn$
      begin
        if coalesce(current_setting('sluice.store_change', true), '') = '' then
          perform set_config('sluice.store_change', 'coarse', true);
          perform sluice_notify_store_change(tg_table_schema, '"all":1,"c":[]');
        end if;
        return null;
      end
      $fn$;

      ${preciseTables
        .map(
          (t) => `
      drop trigger if exists ${t.table}_store_changed on ${t.table};
      create trigger ${t.table}_store_truncated after truncate on ${t.table}
        for each statement execute function sluice_store_changed();
      ${(['insert', 'update', 'delete'] as const).map((op) => preciseFunction(t, op)).join('\n')}`,
        )
        .join('\n')}

      -- Not read by answers: the NFT worker re-scores the collection (nft_collections notifies).
      drop trigger if exists nft_spam_overrides_store_changed on nft_spam_overrides;

      -- The chain's wrapped native and stablecoins change every price and every history answer.
      drop trigger if exists pricing_cursors_store_changed on pricing_cursors;
      create or replace function sluice_pricing_anchors_changed() returns trigger
      language plpgsql as $fn$
      begin
        perform sluice_notify_store_change(tg_table_schema,
          format('"c":[{"id":%s,"pa":1,"ha":1}]', coalesce(new.chain_id, old.chain_id)));
        return null;
      end
      $fn$;
      create trigger pricing_cursors_anchors_added after insert or delete on pricing_cursors
        for each row execute function sluice_pricing_anchors_changed();
      create trigger pricing_cursors_anchors_changed after update on pricing_cursors
        for each row
        when (old.wrapped_native is distinct from new.wrapped_native
              or old.stablecoins is distinct from new.stablecoins)
        execute function sluice_pricing_anchors_changed();
      create trigger pricing_cursors_store_truncated after truncate on pricing_cursors
        for each statement execute function sluice_store_changed();
    `,
  },
];
