import type { Queryable } from '@sluice/db';
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { TOPIC } from '../decode/index.js';
import { type RpcClient, RpcResponseError } from '../rpc/index.js';
import type { FetchedBlock } from '../rpc/rpc-types.js';

/** The two tokens of a Uniswap-v2/v3-compatible pool, as its token0()/token1() answer. */
export interface PoolTokens {
  token0: string;
  token1: string;
}

const abi = parseAbi([
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function supportsInterface(bytes4 id) view returns (bool)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const TOKEN0 = encodeFunctionData({ abi, functionName: 'token0' });
const TOKEN1 = encodeFunctionData({ abi, functionName: 'token1' });
// ERC-721, and the draft interface id CryptoKitties-era contracts answer.
const IS_721 = encodeFunctionData({ abi, functionName: 'supportsInterface', args: ['0x80ac58cd'] });
const IS_721_DRAFT = encodeFunctionData({
  abi,
  functionName: 'supportsInterface',
  args: ['0x9a20483d'],
});
const TRANSFER_96_BYTES = 2 + 64 * 3;
const PER_MULTICALL = 200;

interface Call {
  to: string;
  data: Hex;
}

/**
 * One-time eth_call checks of contracts that emit ambiguous events, cached in memory and in
 * `contract_probes` so each address is asked once per chain:
 * - `pool`: a `Swap` emitter is a v2/v3-compatible pool when token0()/token1() answer two distinct
 *   addresses (any fork, no factory configuration needed); anything else emitting a Swap-shaped
 *   event is not.
 * - `erc721`: a contract emitting `Transfer` with no indexed arguments (CryptoKitties-style, 96
 *   bytes of data) is ERC721 when ERC-165 says so or `ownerOf` answers for a transferred id.
 * Derivation stays pure: `resolve` runs first (I/O), then the sync lookups feed DeriveContext.
 *
 * @example
 * await probes.resolve(fetched, multicall3, to);
 * const batch = deriveBatch(fetched, { ...ctx, poolTokens: probes.poolTokens });
 */
export class ContractProbes {
  private readonly pools = new Map<string, PoolTokens | null>();
  private readonly erc721 = new Map<string, boolean>();

  constructor(
    private readonly db: Queryable,
    private readonly rpc: RpcClient,
    private readonly chainId: number,
  ) {}

  /** token0/token1 of a verified pool; null when not a pool; undefined when never checked. */
  readonly poolTokens = (address: string): PoolTokens | null | undefined => this.pools.get(address);

  /** Whether the contract is a verified ERC721 (for non-indexed Transfer events). */
  readonly isErc721 = (address: string): boolean => this.erc721.get(address) === true;

  /** Forgets every answer (after the chain's data was reset). */
  clear(): void {
    this.pools.clear();
    this.erc721.clear();
  }

  /** Checks every not-yet-known contract of `fetched` that needs it (at most once each). */
  async resolve(
    fetched: readonly FetchedBlock[],
    multicall3: string | null,
    block: bigint,
  ): Promise<void> {
    const pools = new Set<string>();
    const nfts = new Map<string, bigint>();
    for (const fb of fetched) {
      for (const r of fb.receipts) {
        for (const l of r.logs) {
          const t0 = l.topics[0]?.toLowerCase();
          if (t0 === TOPIC.v2Swap || t0 === TOPIC.v3Swap) {
            const a = l.address.toLowerCase();
            if (!this.pools.has(a)) pools.add(a);
          } else if (
            t0 === TOPIC.transfer &&
            l.topics.length === 1 &&
            l.data.length === TRANSFER_96_BYTES
          ) {
            const a = l.address.toLowerCase();
            if (!this.erc721.has(a)) nfts.set(a, BigInt(`0x${l.data.slice(130)}`));
          }
        }
      }
    }
    if (pools.size === 0 && nfts.size === 0) return;
    await this.loadStored([...pools, ...nfts.keys()]);
    const newPools = [...pools].filter((a) => !this.pools.has(a));
    const newNfts = [...nfts].filter(([a]) => !this.erc721.has(a));
    if (newPools.length === 0 && newNfts.length === 0) return;

    // Code is what decides, so `latest` answers for every block (and needs no archive state).
    const calls: Call[] = [
      ...newPools.flatMap((to) => [
        { to, data: TOKEN0 },
        { to, data: TOKEN1 },
      ]),
      ...newNfts.flatMap(([to, id]) => [
        { to, data: IS_721 },
        { to, data: IS_721_DRAFT },
        { to, data: encodeFunctionData({ abi, functionName: 'ownerOf', args: [id] }) },
      ]),
    ];
    const out = await callAll(this.rpc, multicall3, calls, 'latest');
    const rows: [string, string, string | null][] = [];
    newPools.forEach((a, i) => {
      const t0 = asAddress(out[2 * i]);
      const t1 = asAddress(out[2 * i + 1]);
      const tokens = t0 && t1 && t0 !== t1 ? { token0: t0, token1: t1 } : null;
      this.pools.set(a, tokens);
      rows.push([a, 'pool', tokens ? `${tokens.token0},${tokens.token1}` : null]);
    });
    const base = newPools.length * 2;
    for (let i = 0; i < newNfts.length; i++) {
      const [a, id] = newNfts[i] as [string, bigint];
      const k = base + 3 * i;
      let yes = isTrue(out[k]) || isTrue(out[k + 1]) || asAddress(out[k + 2]) !== null;
      let certain = true;
      if (!yes) {
        // The id may be burned since: ask ownerOf where the transfer happened. A node without
        // that block's state can't tell: remember the "no" for this run only.
        const data = encodeFunctionData({ abi, functionName: 'ownerOf', args: [id] });
        const owner = await this.rpc
          .request<Hex>('eth_call', [{ to: a, data }, `0x${block.toString(16)}`])
          .catch((error: unknown) => {
            if (!(error instanceof RpcResponseError)) throw error;
            certain = isRevert(error);
            return null;
          });
        yes = asAddress(owner) !== null;
      }
      this.erc721.set(a, yes);
      if (certain) rows.push([a, 'erc721', yes ? 'erc721' : null]);
    }
    await this.db.query(
      `insert into contract_probes (chain_id, address, probe, result, block)
       select $1, a, p, r, $5 from unnest($2::text[], $3::text[], $4::text[]) as x(a, p, r)
       on conflict do nothing`,
      [
        this.chainId,
        rows.map((r) => r[0]),
        rows.map((r) => r[1]),
        rows.map((r) => r[2]),
        block.toString(),
      ],
    );
  }

  private async loadStored(addresses: string[]): Promise<void> {
    const { rows } = await this.db.query<{ address: string; probe: string; result: string | null }>(
      `select address, probe, result from contract_probes
        where chain_id = $1 and address = any($2::text[])`,
      [this.chainId, addresses],
    );
    for (const r of rows) {
      if (r.probe === 'pool') {
        const [token0, token1] = r.result?.split(',') ?? [];
        this.pools.set(r.address, token0 && token1 ? { token0, token1 } : null);
      } else if (r.probe === 'erc721') {
        this.erc721.set(r.address, r.result === 'erc721');
      }
    }
  }
}

/** Return data of each call, null where it reverted (Multicall3 when deployed, else eth_call each). */
async function callAll(
  rpc: RpcClient,
  multicall3: string | null,
  calls: readonly Call[],
  block: string,
): Promise<(Hex | null)[]> {
  if (multicall3) {
    try {
      return await viaMulticall(rpc, multicall3, calls, block);
    } catch (error) {
      if (!(error instanceof RpcResponseError)) throw error; // else: one call each below
    }
  }
  return Promise.all(
    calls.map((c) =>
      rpc.request<Hex>('eth_call', [{ to: c.to, data: c.data }, block]).catch((error: unknown) => {
        // Reverted (no such function): a "no". Any other error must not become a lasting "no".
        if (error instanceof RpcResponseError && isRevert(error)) return null;
        throw error;
      }),
    ),
  );
}

async function viaMulticall(
  rpc: RpcClient,
  multicall3: string,
  calls: readonly Call[],
  block: string,
): Promise<(Hex | null)[]> {
  const out: (Hex | null)[] = [];
  for (let i = 0; i < calls.length; i += PER_MULTICALL) {
    const chunk = calls.slice(i, i + PER_MULTICALL);
    const raw = await rpc.request<Hex>('eth_call', [
      {
        to: multicall3,
        data: encodeFunctionData({
          abi,
          functionName: 'aggregate3',
          args: [chunk.map((c) => ({ target: c.to as Hex, allowFailure: true, callData: c.data }))],
        }),
      },
      block,
    ]);
    const results = decodeFunctionResult({ abi, functionName: 'aggregate3', data: raw });
    for (const r of results) out.push(r.success ? r.returnData : null);
  }
  return out;
}

/** A non-zero ABI-encoded address, or null. */
function asAddress(data: Hex | null | undefined): string | null {
  if (!data || !/^0x0{24}[0-9a-fA-F]{40}$/.test(data)) return null;
  const a = `0x${data.slice(26).toLowerCase()}`;
  return /^0x0{40}$/.test(a) ? null : a;
}

/** The call itself reverted (as opposed to the node failing to run it). */
function isRevert(error: RpcResponseError): boolean {
  return (
    error.rpcCode === 3 ||
    /revert|invalid opcode|out of gas|stack (underflow|overflow)|bad jump/i.test(error.message)
  );
}

function isTrue(data: Hex | null | undefined): boolean {
  return !!data && data.length === 66 && BigInt(data) === 1n;
}
