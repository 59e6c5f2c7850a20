import type { FastifyReply } from 'fastify';
import type { ApiWarning } from './chain-selector.js';
import type { ApiContext } from './context.js';

/**
 * Wallets-mode chains (src/wallets): tracks the wallet for the request's key, waits for its first backfill up to the
 * configured time, adds the gate's warnings and, while a backfill still runs, `Retry-After`.
 * Returns false when the answer is partial (it must not be cached).
 *
 * @example
 * const complete = await walletBackfillGate(ctx, reply, address, chains, warnings);
 */
export async function walletBackfillGate(
  ctx: ApiContext,
  reply: FastifyReply,
  wallet: string,
  chains: readonly { chainId: number }[],
  warnings: ApiWarning[],
): Promise<boolean> {
  if (!ctx.wallets || chains.length === 0) return true;
  const gate = await ctx.wallets.ensure(
    wallet,
    chains.map((c) => c.chainId),
    reply.request.apiKey?.id ?? '',
  );
  warnings.push(...gate.warnings);
  if (gate.retryAfterSeconds === undefined) return true;
  reply.header('retry-after', String(gate.retryAfterSeconds));
  return false;
}
