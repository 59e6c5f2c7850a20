import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Brings this process up to date with the store before an answer is read: resolves `true` once
 * every change committed before the call is known here (caches dropped what it named, standby
 * reads wait for it), `false` when that could not be established (the answer is then read from
 * the store, bypassing the response cache).
 */
export type ReadFence = () => Promise<boolean>;

const unfenced = new WeakSet<FastifyRequest>();

/**
 * Fences every request of `scope` before its handler runs (after authentication and rate limits,
 * so refused requests cost nothing). What makes it needed: several API processes behind one
 * address, where one may have answered from a batch the other has not heard of yet; the fence
 * keeps a client's answers from going backwards whichever process it reaches.
 *
 * @example
 * keyed.addHook('onRequest', requireApiKey(verifier));
 * useReadFence(keyed, () => feed.sync());
 */
export function useReadFence(scope: FastifyInstance, fence: ReadFence): void {
  scope.addHook('preHandler', async (request) => {
    if (!(await fence())) unfenced.add(request);
  });
}

/** Whether the request's fence failed (its answer must not come from the response cache). */
export function isUnfenced(request: FastifyRequest): boolean {
  return unfenced.has(request);
}
