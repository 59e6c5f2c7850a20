import type { FastifyInstance } from 'fastify';
import type { ChainConfig } from '../../chains/index.js';
import { trackWallets } from '../../store/wallets/tracked-store.js';
import type { ApiContext } from '../context.js';
import { invalidParameter } from '../errors.js';

/** Addresses per pre-track call at most. */
export const MAX_TRACK = 10_000;
/** Chain ids per pre-track call at most. */
const MAX_CHAIN_IDS = 1_000;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const bodySchema = {
  type: 'object',
  required: ['addresses'],
  properties: {
    addresses: { type: 'array', items: { type: 'string' }, maxItems: MAX_TRACK },
    chain_ids: { type: 'array', items: { type: 'integer' }, maxItems: MAX_CHAIN_IDS },
  },
};
const responseSchema = {
  type: 'object',
  properties: {
    tracked: { type: 'integer' },
    chain_ids: { type: 'array', items: { type: 'integer' } },
  },
};

/**
 * Validates a pre-track request: addresses (lower-cased) and the wallets-mode chains it names
 * (all of them when `chain_ids` is absent). Throws a 400 naming the field otherwise.
 *
 * @example
 * parseTrackRequest({ addresses: ['0xAbc…'] }, chains); // { wallets: ['0xabc…'], chainIds: [1] }
 */
export function parseTrackRequest(
  body: unknown,
  chains: readonly ChainConfig[],
): { wallets: string[]; chainIds: number[] } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (!Array.isArray(b.addresses) || b.addresses.length === 0) {
    throw invalidParameter('addresses', 'expected a non-empty array of 0x-prefixed addresses');
  }
  if (b.addresses.length > MAX_TRACK) {
    throw invalidParameter('addresses', `at most ${MAX_TRACK} addresses per request`);
  }
  const wallets = b.addresses.map((a, i) => {
    if (typeof a !== 'string' || !ADDRESS.test(a)) {
      throw invalidParameter(`addresses[${i}]`, 'expected a 0x-prefixed 20-byte hex address');
    }
    return a.toLowerCase();
  });
  const modeChains = chains.filter((c) => c.mode === 'wallets').map((c) => c.chainId);
  let chainIds = modeChains;
  if (b.chain_ids !== undefined) {
    if (
      !Array.isArray(b.chain_ids) ||
      b.chain_ids.length > MAX_CHAIN_IDS ||
      b.chain_ids.some((id) => !modeChains.includes(id as number))
    ) {
      throw invalidParameter(
        'chain_ids',
        `expected chain ids served in wallets mode (${modeChains.join(', ') || 'none'})`,
      );
    }
    chainIds = b.chain_ids as number[];
  }
  return { wallets: [...new Set(wallets)], chainIds };
}

/** POST /v1/evm/wallets/track: start tracking (and backfilling) wallets before anyone asks. */
export function walletsTrackRoute(ctx: ApiContext & { chains: readonly ChainConfig[] }) {
  return async (app: FastifyInstance) => {
    app.post(
      '/wallets/track',
      {
        config: { errorFormat: 'error' },
        schema: {
          tags: ['wallets'],
          summary: 'Pre-track wallets (wallets-mode chains)',
          description: `Starts tracking up to ${MAX_TRACK} wallets on the chains served in wallets mode (all, or \`chain_ids\`): their history is backfilled in the background, after the wallets reads wait for, so first requests answer at once. Each key tracks at most WALLETS_MAX_PER_KEY wallets per chain; its least recently requested beyond are dropped (never another key's). Sluice extension, not in the peer API.`,
          operationId: 'trackWallets',
          body: bodySchema,
          response: { 202: responseSchema },
        },
      },
      async (request, reply) => {
        const { wallets, chainIds } = parseTrackRequest(request.body, ctx.chains);
        const keyId = request.apiKey?.id ?? '';
        for (const id of chainIds)
          await trackWallets(ctx.writeDb, id, wallets, { keyId, priority: 'bulk' });
        return reply.code(202).send({ tracked: wallets.length, chain_ids: chainIds });
      },
    );
  };
}
