import { index, onchainTable, primaryKey } from 'ponder';

export const account = onchainTable(
  'account',
  (t) => ({
    token: t.hex().notNull(),
    address: t.hex().notNull(),
    balance: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.token, table.address] }) }),
);

export const transferEvent = onchainTable(
  'transfer_event',
  (t) => ({
    id: t.text().primaryKey(),
    token: t.hex().notNull(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    amount: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
  }),
  (table) => ({ fromIdx: index().on(table.from), toIdx: index().on(table.to) }),
);
