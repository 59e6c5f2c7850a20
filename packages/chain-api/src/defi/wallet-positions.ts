import type { Queryable } from '@sluice/db';
import type { RpcClient } from '../rpc/create-rpc-client.js';
import { readCalls } from '../rpc/read-calls.js';
import { saveProbeAnswers } from '../store/contract-probes.js';
import {
  classifyNft,
  classifyToken,
  DEFI_PROBE,
  type DefiContract,
  decodeDefiContract,
  encodeDefiContract,
  NFT_PROBE_CALLS,
  nftProbeCalls,
  TOKEN_PROBE_CALLS,
  tokenProbeCalls,
} from './defi-probes.js';
import {
  type ClassifiedHoldings,
  type PoolAddressCache,
  type PositionRead,
  readPositions,
} from './read-positions.js';

/** A contract the wallet holds per the store, with the cached probe answer if there is one. */
export interface HeldContract {
  address: string;
  standard: 'erc20' | 'erc721';
  /** ERC721: the token ids held. */
  tokenIds: bigint[];
  /** Whether `contract_probes` has an answer (`result` null then means "not a position"). */
  probed: boolean;
  result: string | null;
}

/** Where a chain's contracts are read: its node and Multicall3 (null: none, call by call). */
export interface ChainAccess {
  chainId: number;
  rpc: RpcClient;
  multicall3: string | null;
}

type Answer = DefiContract | null | undefined;

/**
 * A wallet's DeFi positions on one chain: classifies the contracts it holds (each unknown
 * contract probed once per chain, answers kept in `contract_probes`; concurrent requests share
 * one probe), then reads the positions at the given block.
 *
 * @example
 * const reader = new WalletPositions(db);
 * const { positions } = await reader.read(access, wallet, held, 1234n);
 */
export class WalletPositions {
  private readonly inflight = new Map<string, Promise<Answer>>();
  private readonly pools = new Map<number, PoolAddressCache>();

  constructor(
    private readonly db: Queryable,
    private readonly onStoreError: (error: unknown) => void = () => {},
  ) {}

  async read(
    access: ChainAccess,
    wallet: string,
    held: readonly HeldContract[],
    block: bigint,
  ): Promise<PositionRead> {
    const answers = await this.classify(
      access,
      held.filter((h) => !h.probed && (h.standard === 'erc20' || h.tokenIds.length > 0)),
      block,
    );
    const holdings: ClassifiedHoldings = { pairs: [], vaults: [], managers: [] };
    for (const h of held) {
      const found = h.probed ? decodeDefiContract(h.result) : answers.get(h.address);
      if (!found) continue;
      if (found.kind === 'uniswap_v2' && h.standard === 'erc20') {
        holdings.pairs.push({ address: h.address, token0: found.token0, token1: found.token1 });
      } else if (found.kind === 'erc4626' && h.standard === 'erc20') {
        holdings.vaults.push({ address: h.address, asset: found.asset });
      } else if (found.kind === 'uniswap_v3_npm' && h.standard === 'erc721') {
        holdings.managers.push({
          address: h.address,
          factory: found.factory,
          tokenIds: h.tokenIds,
        });
      }
    }
    let pools = this.pools.get(access.chainId);
    if (!pools) {
      pools = new Map();
      this.pools.set(access.chainId, pools);
    }
    const read = await readPositions(access.rpc, access.multicall3, wallet, holdings, block, pools);
    // Contracts the node could not probe may be positions too: report them as unreadable.
    const undecided = [...answers].filter(([, a]) => a === undefined).map(([address]) => address);
    return { ...read, unreadable: [...new Set([...read.unreadable, ...undecided])] };
  }

  /** Answers for not-yet-probed contracts; one probe per contract even across requests. */
  private async classify(
    access: ChainAccess,
    unknown: readonly HeldContract[],
    block: bigint,
  ): Promise<Map<string, Answer>> {
    const out = new Map<string, Answer>();
    const waits: Promise<void>[] = [];
    const fresh: HeldContract[] = [];
    for (const h of unknown) {
      const pending = this.inflight.get(`${access.chainId}:${h.address}`);
      if (pending) {
        waits.push(pending.then((answer) => void out.set(h.address, answer)));
      } else fresh.push(h);
    }
    if (fresh.length > 0) {
      const batch = this.probe(access, fresh, block);
      for (const h of fresh) {
        const key = `${access.chainId}:${h.address}`;
        const answer = batch.then((answers) => answers.get(h.address));
        this.inflight.set(key, answer);
        // Settled either way: the next request asks again after a failure.
        answer.then(
          () => this.inflight.delete(key),
          () => this.inflight.delete(key),
        );
      }
      waits.push(
        batch.then((answers) => {
          for (const [address, answer] of answers) out.set(address, answer);
        }),
      );
    }
    await Promise.all(waits);
    return out;
  }

  private async probe(
    access: ChainAccess,
    contracts: readonly HeldContract[],
    block: bigint,
  ): Promise<Map<string, Answer>> {
    const tokens = contracts.filter((c) => c.standard === 'erc20');
    const nfts = contracts.filter((c) => c.standard === 'erc721');
    const results = await readCalls(
      access.rpc,
      access.multicall3,
      [
        ...tokens.flatMap((t) => tokenProbeCalls(t.address)),
        ...nfts.flatMap((n) => nftProbeCalls(n.address, n.tokenIds[0]!)),
      ],
      block,
    );
    const answers = new Map<string, Answer>();
    tokens.forEach((t, i) => {
      const at = i * TOKEN_PROBE_CALLS;
      answers.set(t.address, classifyToken(t.address, results.slice(at, at + TOKEN_PROBE_CALLS)));
    });
    const base = tokens.length * TOKEN_PROBE_CALLS;
    nfts.forEach((n, i) => {
      const at = base + i * NFT_PROBE_CALLS;
      answers.set(n.address, classifyNft(results.slice(at, at + NFT_PROBE_CALLS)));
    });
    const definite = [...answers].filter(([, a]) => a !== undefined);
    if (definite.length > 0) {
      await saveProbeAnswers(
        this.db,
        access.chainId,
        definite.map(([address, a]) => ({
          address,
          probe: DEFI_PROBE,
          result: encodeDefiContract(a ?? null),
        })),
        block,
      )
        // The answers still serve this request; the next one probes again.
        .catch(this.onStoreError);
    }
    return answers;
  }
}
