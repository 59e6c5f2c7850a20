import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectHeldContracts, selectTokenFacts } from '../src/api/queries/defi-holdings-query.js';
import { storeMigrations } from '../src/store/migrations.js';
import {
  addr,
  insertErc20Balances,
  insertNftHoldings,
  insertPrices,
  insertTokens,
} from './support/seed-store.js';

const wallet = addr('defi-wallet');
const lpToken = addr('defi-lp');
const spent = addr('defi-spent');
const manager = addr('defi-npm');
const other = addr('defi-other-chain');

// The store side of the DeFi endpoint, on both stores: what a wallet holds with the cached probe
// answers, and token facts (metadata + price) for any list of tokens.
for (const kind of ['postgres', 'pglite'] as const) {
  describe(`DeFi holdings queries (${kind})`, () => {
    let t: TestDatabase;

    beforeAll(async () => {
      t = await createTestDatabase(kind);
      await migrate(t.db, storeMigrations);
      await insertErc20Balances(t.db, [
        { chainId: 1, wallet, token: lpToken, amount: '5' },
        { chainId: 1, wallet, token: spent, amount: '0' },
        { chainId: 8453, wallet, token: other, amount: '1' },
        { chainId: 1, wallet: addr('defi-someone'), token: lpToken, amount: '9' },
      ]);
      await insertNftHoldings(
        t.db,
        ['7', '3'].map((tokenId) => ({
          chainId: 1,
          wallet,
          contract: manager,
          tokenId,
          standard: 'erc721' as const,
          balance: '1',
          lastAcquired: 1_700_000_000,
        })),
      );
      await t.db.query(
        `insert into contract_probes (chain_id, address, probe, result, block)
         values (1, $1, 'defi', 'uniswap_v3_npm:0x00000000000000000000000000000000000000f1', 5),
                (1, $2, 'pool', '0x1,0x2', 5)`,
        [manager, lpToken],
      );
      await insertTokens(t.db, [
        {
          chainId: 1,
          address: lpToken,
          standard: 'erc20',
          name: 'Uniswap V2',
          symbol: 'UNI-V2',
          decimals: 18,
        },
      ]);
      await insertPrices(t.db, [
        { chainId: 1, token: lpToken, priceUsd: 2.5, poolSize: 1, lowLiquidity: false },
      ]);
    });

    afterAll(async () => {
      await t?.drop();
    });

    it('positive ERC20 balances and ERC721 ids per chain, with only the defi probe answer', async () => {
      const held = await selectHeldContracts(t.db, wallet, [1, 8453]);
      const chain1 = held.get(1)!.sort((a, b) => (a.address < b.address ? -1 : 1));
      expect(chain1).toEqual(
        [
          { address: lpToken, standard: 'erc20', tokenIds: [], probed: false, result: null },
          {
            address: manager,
            standard: 'erc721',
            tokenIds: [3n, 7n],
            probed: true,
            result: 'uniswap_v3_npm:0x00000000000000000000000000000000000000f1',
          },
        ].sort((a, b) => (a.address < b.address ? -1 : 1)),
      );
      expect(held.get(8453)).toEqual([
        { address: other, standard: 'erc20', tokenIds: [], probed: false, result: null },
      ]);
      expect((await selectHeldContracts(t.db, wallet, [10])).size).toBe(0);
      expect((await selectHeldContracts(t.db, wallet, [])).size).toBe(0);
    });

    it('token facts: metadata and price where stored, nulls and known=false otherwise', async () => {
      const facts = await selectTokenFacts(t.db, [
        [1, lpToken],
        [1, spent],
      ]);
      expect(facts).toEqual([
        {
          chain_id: 1,
          address: lpToken,
          name: 'Uniswap V2',
          symbol: 'UNI-V2',
          decimals: 18,
          price_usd: 2.5,
          known: true,
        },
        {
          chain_id: 1,
          address: spent,
          name: null,
          symbol: null,
          decimals: null,
          price_usd: null,
          known: false,
        },
      ]);
    });
  });
}
