import type { QueryResult } from '@sluice/db';
import { describe, expect, it } from 'vitest';
import type { ReadDb } from '../api/queries/prepared-query.js';
import { pricingLookups } from './pricing-lookups.js';

/** A store without prices that counts the statements it is sent. */
function countingDb(): ReadDb & { statements: number } {
  const db = {
    statements: 0,
    async query<Row>(): Promise<QueryResult<Row>> {
      db.statements++;
      return { rows: [], rowCount: 0 };
    },
    async exec() {},
  };
  return db;
}

describe('pricingLookups', () => {
  it("reads through the view it is given (a request's) and shares the memo of settled prices", async () => {
    const shared = countingDb();
    const request = countingDb();
    const lookups = pricingLookups(shared, []);
    const old = new Date(Date.now() - 3_600_000);
    const item = { chainId: 1, token: '0x00000000000000000000000000000000000000aa', time: old };

    const mine = lookups.readingFrom?.(request);
    await expect(mine?.pricesAt([item])).resolves.toEqual([null]);
    await expect(mine?.historicalPricesAt?.([item])).resolves.toEqual([null]);
    expect([shared.statements, request.statements]).toEqual([0, 2]);

    // The settled answers are memoized for every view: asking again sends nothing.
    await lookups.pricesAt([item]);
    await lookups.historicalPricesAt?.([item]);
    expect([shared.statements, request.statements]).toEqual([0, 2]);

    // Without a view, the lookups read the store they were made with.
    await lookups.pricesAt([{ ...item, time: new Date(old.getTime() - 1) }]);
    expect([shared.statements, request.statements]).toEqual([1, 2]);
  });
});
