import type { Queryable } from '@sluice/db';

/** Seeding of block headers, transactions and raw logs (the tables behind /transactions). */

export interface SeedBlock {
  chainId: number;
  number: number;
  time: number; // unix seconds
}

export const blockHash = (chainId: number, n: number): string =>
  `0x${chainId.toString(16).padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;

export async function insertBlocks(db: Queryable, rows: readonly SeedBlock[]) {
  await db.query(
    `insert into blocks (chain_id, number, hash, parent_hash, timestamp)
     select c, n, h, '0x', to_timestamp(t)
       from unnest($1::int[], $2::bigint[], $3::text[], $4::float8[]) as u(c, n, h, t)`,
    [
      rows.map((r) => r.chainId),
      rows.map((r) => r.number),
      rows.map((r) => blockHash(r.chainId, r.number)),
      rows.map((r) => r.time),
    ],
  );
}

export interface SeedTransaction {
  chainId: number;
  blockNumber: number;
  txIndex: number;
  hash: string;
  from: string;
  to: string | null;
  value?: string;
  input?: string; // 0x-hex
  status?: 0 | 1;
  gasUsed?: string;
  gasPrice?: string | null;
  contractAddress?: string | null;
}

export async function insertTransactions(db: Queryable, rows: readonly SeedTransaction[]) {
  await db.query(
    `insert into transactions (chain_id, block_number, tx_index, hash, from_address, to_address,
       contract_address, value, selector, input, status, gas_used, effective_gas_price)
     select c, b, i, h, f, t, ca, v::numeric, case when length(inp) >= 10 then substr(inp, 1, 10) end,
            decode(substr(inp, 3), 'hex'), s, g::numeric, gp::numeric
       from unnest($1::int[], $2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
                   $8::text[], $9::text[], $10::int[], $11::text[], $12::text[])
         as u(c, b, i, h, f, t, ca, v, inp, s, g, gp)`,
    [
      rows.map((r) => r.chainId),
      rows.map((r) => r.blockNumber),
      rows.map((r) => r.txIndex),
      rows.map((r) => r.hash),
      rows.map((r) => r.from),
      rows.map((r) => r.to),
      rows.map((r) => r.contractAddress ?? null),
      rows.map((r) => r.value ?? '0'),
      rows.map((r) => r.input ?? '0x'),
      rows.map((r) => r.status ?? 1),
      rows.map((r) => r.gasUsed ?? '21000'),
      rows.map((r) => (r.gasPrice === undefined ? '1000000000' : r.gasPrice)),
    ],
  );
}

export interface SeedLog {
  chainId: number;
  blockNumber: number;
  txIndex: number;
  logIndex: number;
  address: string;
  topics: string[];
  data: string; // 0x-hex
}

export async function insertLogs(db: Queryable, rows: readonly SeedLog[]) {
  await db.query(
    `insert into logs (chain_id, block_number, tx_index, log_index, address, topic0, topic1, topic2, topic3, data)
     select c, b, i, li, a, t0, t1, t2, t3, decode(substr(d, 3), 'hex')
       from unnest($1::int[], $2::bigint[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[],
                   $8::text[], $9::text[], $10::text[]) as u(c, b, i, li, a, t0, t1, t2, t3, d)`,
    [
      rows.map((r) => r.chainId),
      rows.map((r) => r.blockNumber),
      rows.map((r) => r.txIndex),
      rows.map((r) => r.logIndex),
      rows.map((r) => r.address),
      rows.map((r) => r.topics[0] ?? null),
      rows.map((r) => r.topics[1] ?? null),
      rows.map((r) => r.topics[2] ?? null),
      rows.map((r) => r.topics[3] ?? null),
      rows.map((r) => r.data),
    ],
  );
}
