import type { Logger } from 'pino';
import type { RpcClient } from '../rpc/index.js';
import { RpcResponseError } from '../rpc/index.js';

/**
 * Native balances of `addresses` at `block` (one batched eth_getBalance each). A node without that
 * historical state (a non-archive node far behind) answers with an error: then the balances are
 * read at `latest` instead and `atLatest` says so.
 *
 * @example
 * const { balances } = await fetchNativeBalances(rpc, ['0xabc...'], 1234n);
 */
export async function fetchNativeBalances(
  rpc: RpcClient,
  addresses: readonly string[],
  block: bigint,
  log?: Logger,
): Promise<{ balances: Map<string, bigint>; atLatest: boolean }> {
  const balances = new Map<string, bigint>();
  if (addresses.length === 0) return { balances, atLatest: false };
  const isHex = (r: unknown) => typeof r === 'string' && /^0x[0-9a-fA-F]*$/.test(r);
  const read = (tag: string) =>
    rpc.batch<string>(
      addresses.map((a) => ({ method: 'eth_getBalance', params: [a, tag] })),
      { validate: isHex },
    );
  let atLatest = false;
  let values: string[];
  try {
    values = await read(`0x${block.toString(16)}`);
  } catch (error) {
    if (!(error instanceof RpcResponseError)) throw error;
    log?.warn(
      { block: Number(block), err: error.message },
      'historical balance unavailable; reading latest',
    );
    values = await read('latest');
    atLatest = true;
  }
  addresses.forEach((a, i) => {
    balances.set(a, BigInt(values[i] === '0x' ? '0x0' : (values[i] as string)));
  });
  return { balances, atLatest };
}
