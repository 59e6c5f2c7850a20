import type { Queryable } from '@sluice/db';

/** One probe answer: what a one-time eth_call check of a contract found (null: no). */
export interface ProbeAnswer {
  address: string;
  probe: string;
  result: string | null;
}

/**
 * Stores probe answers read at `block` (an answer already stored is kept: contracts do not
 * change what they are).
 */
export async function saveProbeAnswers(
  db: Queryable,
  chainId: number,
  answers: readonly ProbeAnswer[],
  block: bigint,
): Promise<void> {
  await db.query(
    `insert into contract_probes (chain_id, address, probe, result, block)
     select $1, a, p, r, $5 from unnest($2::text[], $3::text[], $4::text[]) as x(a, p, r)
     on conflict do nothing`,
    [
      chainId,
      answers.map((r) => r.address),
      answers.map((r) => r.probe),
      answers.map((r) => r.result),
      block.toString(),
    ],
  );
}
