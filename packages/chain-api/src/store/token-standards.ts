import type { Queryable } from '@sluice/db';

/**
 * The token standard (`erc20`, `erc721`, `erc1155`) stored for each of `addresses` that the
 * `tokens` table knows on the chain; unknown addresses are absent from the result.
 *
 * @example
 * const known = await readTokenStandards(db, 1, ['0xa0b8...']); // Map { '0xa0b8...' => 'erc20' }
 */
export async function readTokenStandards(
  db: Queryable,
  chainId: number,
  addresses: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await db.query<{ address: string; standard: string }>(
    'select address, standard from tokens where chain_id = $1 and address = any($2::text[])',
    [chainId, addresses],
  );
  return new Map(rows.map((r) => [r.address, r.standard]));
}
