import type { Queryable } from '@sluice/db';
import type { TokenMetadata } from '../derive/index.js';
import { bulkInsert } from './bulk-insert.js';
import { s } from './sql-values.js';

/** Schema of `tokens` (part of the core migration). */
export const tokensSchema = /* sql */ `
-- Token contracts seen in any ERC20/721/1155 event: metadata fetched once (Multicall3 when deployed).
-- standard: erc20 | erc721 | erc1155 | unknown.  status: pending | ok | partial (some calls reverted) | failed.
-- symbol/name tolerate bytes32-returning tokens (decoded as trimmed UTF-8).
create table tokens (
  chain_id      integer     not null,
  address       text        not null,
  standard      text        not null default 'unknown',
  name          text,
  symbol        text,
  decimals      smallint,
  status        text        not null default 'pending' check (status in ('pending','ok','partial','failed')),
  error         text,
  first_block   bigint      not null,
  fetched_at    timestamptz,
  primary key (chain_id, address)
);
`;

/**
 * Inserts `tokens` rows for newly seen tokens (metadata as fetched, `first_block` per token);
 * rows already there are kept.
 *
 * @example
 * await writeNewTokens(tx, 1, tokens, (t) => firstSeen.get(t.address) ?? fromBlock);
 */
export async function writeNewTokens(
  tx: Queryable,
  chainId: number,
  tokens: readonly TokenMetadata[],
  firstBlock: (token: TokenMetadata) => bigint,
): Promise<void> {
  const fetchedAt = new Date().toISOString();
  await bulkInsert(
    tx,
    'tokens',
    [
      ['chain_id', 'int4'],
      ['address', 'text'],
      ['standard', 'text'],
      ['name', 'text'],
      ['symbol', 'text'],
      ['decimals', 'int2'],
      ['status', 'text'],
      ['first_block', 'int8'],
      ['fetched_at', 'timestamptz'],
    ],
    tokens.map((t) => [
      chainId,
      t.address,
      t.standard,
      t.name,
      t.symbol,
      t.decimals,
      t.status,
      s(firstBlock(t)),
      fetchedAt,
    ]),
    'on conflict (chain_id, address) do nothing',
  );
}

/** Marks tokens found not to conserve balances (reason and block), unless already marked. */
export async function markNonConserving(
  tx: Queryable,
  chainId: number,
  marks: ReadonlyMap<string, { reason: string; block: bigint }>,
): Promise<void> {
  if (marks.size === 0) return;
  const m = [...marks];
  await tx.query(
    `update tokens t set balance_model = 'non_conserving', balance_model_reason = m.r,
            balance_model_block = m.b
       from unnest($2::text[], $3::text[], $4::int8[]) as m(a, r, b)
      where t.chain_id = $1 and t.address = m.a and t.balance_model = 'conserving'`,
    [chainId, m.map(([a]) => a), m.map(([, x]) => x.reason), m.map(([, x]) => s(x.block))],
  );
}

/** Records, per token, why its balanceOf could not be read. */
export async function setBalanceReadErrors(
  tx: Queryable,
  chainId: number,
  errors: ReadonlyMap<string, string>,
): Promise<void> {
  if (errors.size === 0) return;
  const e = [...errors];
  await tx.query(
    `update tokens t set balance_read_error = e.m
       from unnest($2::text[], $3::text[]) as e(a, m)
      where t.chain_id = $1 and t.address = e.a`,
    [chainId, e.map(([a]) => a), e.map(([, m]) => m)],
  );
}
