import type { ChainConfig } from '../chains/chain-config.js';
import { capHeld } from '../defi/cap-held.js';
import { ChainStateUnavailableError, type PositionState } from '../defi/read-positions.js';
import type { ChainAccess, WalletPositions } from '../defi/wallet-positions.js';
import { fetchTokenMetadata } from '../derive/token-metadata.js';
import { MULTICALL3_ADDRESS } from '../rpc/probe-capabilities.js';
import { RpcError } from '../rpc/rpc-errors.js';
import type { ApiWarning } from './chain-selector.js';
import type { ApiContext } from './context.js';
import { type ShapedPosition, shapePositions, type TokenView } from './defi-shape.js';
import { ApiError } from './errors.js';
import { limitsOf } from './limits/request-scope.js';
import { selectHeldContracts, selectTokenFacts } from './queries/defi-holdings-query.js';

/** The 503 of a chain whose node cannot be read right now. */
function nodeUnavailable(chain: ChainConfig): ApiError {
  return new ApiError(
    'NOT_READY',
    `Try again later: the node of ${chain.name} (${chain.chainId}) could not be read.`,
    { 'retry-after': '5' },
  );
}

interface ChainRead {
  chain: ChainConfig;
  access: ChainAccess | undefined;
  block: bigint;
  states: PositionState[];
  unreadable: string[];
}

/**
 * The body of `/defi/positions/{address}`: the contracts the wallet holds per the store, read
 * on each chain's node at the chain's indexed block (`blocks`), priced from `token_prices`.
 * A node that cannot be read is a 503 naming the chain; contracts it could not run leave their
 * positions out with a `POSITIONS_INCOMPLETE` warning.
 *
 * @example
 * const body = await defiPositionsBody(ctx, reader, wallet, chains, blocks, warnings);
 */
export async function defiPositionsBody(
  ctx: ApiContext,
  reader: WalletPositions,
  wallet: string,
  chains: readonly ChainConfig[],
  blocks: ReadonlyMap<number, bigint>,
  warnings: ApiWarning[],
): Promise<Record<string, unknown>> {
  const held = await selectHeldContracts(
    ctx.db,
    wallet,
    chains.map((c) => c.chainId),
  );
  const reads = await Promise.all(
    chains.map(async (chain): Promise<ChainRead> => {
      const { kept: list, left } = capHeld(
        held.get(chain.chainId) ?? [],
        limitsOf(ctx.scope).maxDefiContracts,
      );
      if (left > 0) {
        warnings.push({
          code: 'POSITIONS_CAPPED',
          message: `The wallet holds more position candidates on ${chain.name} than one request reads (DEFI_MAX_CONTRACTS = ${limitsOf(ctx.scope).maxDefiContracts}); ${left} contract(s) or NFT id(s) were not read.`,
          chain_ids: [chain.chainId],
        });
      }
      const block = blocks.get(chain.chainId) ?? 0n;
      const rpc = ctx.rpc?.get(chain.chainId);
      const access = rpc && {
        chainId: chain.chainId,
        rpc,
        multicall3: chain.multicall3 ?? MULTICALL3_ADDRESS,
      };
      if (list.length === 0) return { chain, access, block, states: [], unreadable: [] };
      if (!access) throw nodeUnavailable(chain);
      try {
        const read = await reader.read(access, wallet, list, block);
        return { chain, access, block, states: read.positions, unreadable: read.unreadable };
      } catch (error) {
        if (error instanceof ChainStateUnavailableError || error instanceof RpcError) {
          throw nodeUnavailable(chain);
        }
        throw error;
      }
    }),
  );

  const views = await tokenViews(ctx, reads);
  const positions: ShapedPosition[] = [];
  const byChain: Record<string, number> = {};
  for (const read of reads) {
    if (read.unreadable.length > 0) {
      warnings.push({
        code: 'POSITIONS_INCOMPLETE',
        message: `The node of ${read.chain.name} could not run calls of ${read.unreadable.length} contract(s); their positions are missing.`,
        chain_ids: [read.chain.chainId],
      });
    }
    const view = (address: string) => views.get(`${read.chain.chainId}:${address}`)!;
    const shaped = shapePositions(read.states, read.chain, view);
    if (shaped.length === 0) continue;
    positions.push(...shaped);
    byChain[String(read.chain.chainId)] = shaped.reduce((sum, p) => sum + p.valueUsd, 0);
  }
  const body: Record<string, unknown> = {
    positions: positions.map((p) => p.body),
    aggregations: {
      total_value_usd: positions.reduce((sum, p) => sum + p.valueUsd, 0),
      total_by_chain: byChain,
    },
  };
  if (warnings.length > 0) body.warnings = warnings;
  return body;
}

/** Every token the positions mention: stored metadata and price, else read from the node. */
async function tokenViews(
  ctx: ApiContext,
  reads: readonly ChainRead[],
): Promise<Map<string, TokenView>> {
  const wanted = reads.flatMap((r) =>
    [...new Set(r.states.flatMap(tokensOf))].map((a) => [r.chain.chainId, a] as const),
  );
  const facts = await selectTokenFacts(ctx.db, wanted);
  const views = new Map<string, TokenView>();
  for (const f of facts) {
    views.set(`${f.chain_id}:${f.address}`, {
      address: f.address,
      name: f.name,
      symbol: f.symbol,
      decimals: f.decimals,
      price: f.price_usd,
      logo: ctx.pricing?.tokenLinks(f.chain_id, f.address)?.logo,
    });
  }
  // Tokens the index never saw (indexed from a later block), or without decimals: ask the node.
  await Promise.all(
    reads.map(async (r) => {
      const missing = facts
        .filter((f) => f.chain_id === r.chain.chainId && f.decimals === null)
        .map((f) => f.address);
      if (missing.length === 0 || !r.access) return;
      const meta = await fetchTokenMetadata(r.access.rpc, missing, {
        multicall3: r.access.multicall3,
        block: `0x${r.block.toString(16)}`,
      }).catch((error: unknown) => {
        if (error instanceof RpcError) throw nodeUnavailable(r.chain);
        throw error;
      });
      for (const m of meta) {
        const view = views.get(`${r.chain.chainId}:${m.address}`)!;
        view.name ??= m.name;
        view.symbol ??= m.symbol;
        view.decimals ??= m.decimals;
      }
    }),
  );
  return views;
}

function tokensOf(p: PositionState): string[] {
  if (p.kind === 'uniswap_v2') return [p.pair, p.token0, p.token1];
  if (p.kind === 'erc4626') return [p.vault, p.asset];
  return [p.manager, p.token0, p.token1];
}
