import type { ChainConfig } from '../../chains/chain-config.js';
import { usdValue } from '../../shape/format.js';
import type { ApiContext, PriceAtRequest } from '../context.js';
import { limitsOf } from '../limits/request-scope.js';
import { signedErc20Delta } from '../queries/historical-balances-query.js';
import { indexedRange } from './past-block.js';
import type { PastStateReader } from './state-reader.js';

/** One chain's value at the end of one day. */
export interface PortfolioChainPoint {
  chain: string;
  chain_id: number;
  /** Last indexed block at or before the point's time; null before the chain's indexed history. */
  block_number: number | null;
  block_time: string | null;
  /** Sum of priced holdings; null when the chain's history does not reach this day. */
  value_usd: number | null;
  priced_tokens: number;
  /** Held tokens (or `native`) without a price at that time: not in `value_usd` (first 20). */
  unpriced_tokens: string[];
  /** How many held tokens had no price at that time (all of them, listed or not). */
  unpriced_count: number;
  /** False when the history does not reach the day or a balance could not be read then. */
  complete: boolean;
}

/** The portfolio at the end of one UTC day (the last point: now). */
export interface PortfolioPoint {
  date: string;
  time: string;
  value_usd: number;
  priced_tokens: number;
  unpriced_count: number;
  /** False when a chain's history does not reach the day or some balances could not be read. */
  complete: boolean;
  chains: PortfolioChainPoint[];
}

interface Holding {
  token: string;
  decimals: number | null;
  /** False for a token with no price point at all by now: no lookups, always unpriced. */
  priceable: boolean;
  /** Exact amount per day (index aligned with the days), null = the node could not tell. */
  amounts: (bigint | null)[];
}

const DAY_MS = 86_400_000;

/** Unpriced tokens named per chain point (`unpriced_count` counts them all). */
const UNPRICED_LISTED = 20;

/** End of each of the last `days` UTC days, oldest first; the last one is `now`. */
export function dayEnds(days: number, now: Date): { date: string; at: Date }[] {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: days }, (_, k) => {
    const start = today - (days - 1 - k) * DAY_MS;
    const end = Math.min(start + DAY_MS - 1, now.getTime());
    return { date: new Date(start).toISOString().slice(0, 10), at: new Date(end) };
  });
}

/**
 * A wallet's daily USD value over the last `days` days on each chain: the balances at the last
 * indexed block of each day (exact as the historical balances endpoint: conserving ERC20s from the
 * current amount minus later movements, native and non-conserving tokens from the node when the
 * store cannot tell) times each token's price at the end of that day. Tokens without a price then
 * are listed as unpriced, never valued at 0 or NaN.
 *
 * @example
 * const { points, unavailable } = await portfolioSeries(ctx, wallet, chains, 30, new Date());
 */
export async function portfolioSeries(
  ctx: ApiContext,
  wallet: string,
  chains: readonly ChainConfig[],
  days: number,
  now: Date,
): Promise<{
  points: PortfolioPoint[];
  unavailable: Map<ChainConfig, Set<string>>;
  /** Chains with more tokens than PORTFOLIO_MAX_TOKENS: how many were left out. */
  capped: Map<ChainConfig, { valued: number; held: number }>;
}> {
  const ends = dayEnds(days, now);
  const unavailable = new Map<ChainConfig, Set<string>>();
  const capped = new Map<ChainConfig, { valued: number; held: number }>();
  const perChain = await Promise.all(
    chains.map((chain) =>
      chainSeries(ctx, ctx.pastState, wallet, chain, ends, { unavailable, capped }),
    ),
  );
  const points = ends.map((end, d): PortfolioPoint => {
    const entries = perChain.map((series) => series[d] as PortfolioChainPoint);
    return {
      date: end.date,
      time: end.at.toISOString(),
      value_usd: entries.reduce((sum, e) => sum + (e.value_usd ?? 0), 0),
      priced_tokens: entries.reduce((sum, e) => sum + e.priced_tokens, 0),
      unpriced_count: entries.reduce((sum, e) => sum + e.unpriced_count, 0),
      complete: entries.every((e) => e.complete),
      chains: entries,
    };
  });
  return { points, unavailable, capped };
}

/** What a chain's series found beyond its points. */
interface SeriesNotes {
  unavailable: Map<ChainConfig, Set<string>>;
  capped: Map<ChainConfig, { valued: number; held: number }>;
}

/** Price questions per SQL statement (each a keyed lookup). */
const PRICES_PER_QUERY = 5_000;

async function pricesInChunks(
  ctx: ApiContext,
  requests: readonly PriceAtRequest[],
): Promise<(number | null)[]> {
  const pricing = ctx.pricing;
  if (!pricing) return requests.map(() => null);
  const out: (number | null)[] = [];
  for (let i = 0; i < requests.length; i += PRICES_PER_QUERY) {
    out.push(...(await pricing.pricesAt(requests.slice(i, i + PRICES_PER_QUERY))));
  }
  return out;
}

async function chainSeries(
  ctx: ApiContext,
  reader: PastStateReader | undefined,
  wallet: string,
  chain: ChainConfig,
  ends: readonly { date: string; at: Date }[],
  notes: SeriesNotes,
): Promise<PortfolioChainPoint[]> {
  const { first, last } = await indexedRange(ctx.db, chain);
  const blocks = await dayBlocks(ctx, chain, ends, first, last);
  const empty = (d: number): PortfolioChainPoint => ({
    chain: chain.name,
    chain_id: chain.chainId,
    block_number: blocks[d] ? Number(blocks[d].number) : null,
    block_time: blocks[d] ? blocks[d].time.toISOString() : null,
    value_usd: blocks[d] ? 0 : null,
    priced_tokens: 0,
    unpriced_tokens: [],
    unpriced_count: 0,
    complete: blocks[d] !== null && blocks[d] !== undefined,
  });
  const known = blocks.flatMap((b) => (b ? [b] : []));
  const oldest = known[0];
  if (!oldest) return ends.map((_, d) => empty(d));
  const holdings = await holdingsPerDay(ctx, reader, wallet, chain, blocks, oldest, notes);
  // Plain loops over tokens × days (36,500 cells for a year of 100 tokens), no object per cell:
  // a spam wallet's never-priced tokens are counted per day without any price question.
  const valued = (h: Holding, d: number): boolean => {
    const amount = h.amounts[d];
    return amount !== null && amount !== undefined && amount > 0n && ends[d] !== undefined;
  };
  const requests: PriceAtRequest[] = [];
  for (const h of holdings) {
    if (!h.priceable) continue;
    for (let d = 0; d < h.amounts.length; d++) {
      if (valued(h, d)) {
        requests.push({
          chainId: chain.chainId,
          token: h.token,
          time: (ends[d] as { at: Date }).at,
        });
      }
    }
  }
  const prices = await pricesInChunks(ctx, requests);
  const out = ends.map((_, d) => empty(d));
  let asked = 0;
  for (const h of holdings) {
    for (let d = 0; d < h.amounts.length; d++) {
      const point = out[d] as PortfolioChainPoint;
      if (h.amounts[d] === null) point.complete = false;
      if (!valued(h, d)) continue;
      const price = h.priceable ? (prices[asked++] ?? null) : null;
      const value =
        price === null || h.decimals === null
          ? null
          : usdValue(String(h.amounts[d]), h.decimals, price);
      if (value === null || !Number.isFinite(value)) {
        // Listed up to a few per point: a spam wallet would repeat thousands on every day.
        if (point.unpriced_tokens.length < UNPRICED_LISTED) point.unpriced_tokens.push(h.token);
        point.unpriced_count++;
      } else {
        point.value_usd = (point.value_usd ?? 0) + value;
        point.priced_tokens++;
      }
    }
  }
  return out;
}

interface DayBlock {
  number: bigint;
  time: Date;
}

/** The last indexed block at or before each day's end (null before the chain's history). */
async function dayBlocks(
  ctx: ApiContext,
  chain: ChainConfig,
  ends: readonly { at: Date }[],
  first: bigint,
  last: bigint,
): Promise<(DayBlock | null)[]> {
  const { rows } = await ctx.db.query<{ i: string; number: string | null; timestamp: Date | null }>(
    `select d.i::text, b.number::text, b.timestamp
       from unnest($2::timestamptz[]) with ordinality as d(t, i)
       left join lateral (
         select number, timestamp from blocks
          where chain_id = $1 and timestamp <= d.t and number <= $3
          order by timestamp desc, number desc limit 1
       ) b on true
      order by d.i`,
    [chain.chainId, ends.map((e) => e.at.toISOString()), last.toString()],
  );
  return rows.map((r) =>
    r.number === null || r.timestamp === null || BigInt(r.number) < first
      ? null
      : { number: BigInt(r.number), time: r.timestamp },
  );
}

interface PairRow {
  token: string;
  amount: string;
  decimals: number | null;
  node: boolean;
  priceable: boolean;
  held: string;
}

/** Every token (and native) of the wallet on the chain with its exact amount at each day block. */
async function holdingsPerDay(
  ctx: ApiContext,
  reader: PastStateReader | undefined,
  wallet: string,
  chain: ChainConfig,
  blocks: readonly (DayBlock | null)[],
  oldest: DayBlock,
  notes: SeriesNotes,
): Promise<Holding[]> {
  const maxTokens = limitsOf(ctx.scope).maxPortfolioTokens;
  // The tokens valued: those that ever had a price first (stablecoins, then the most liquid),
  // at most PORTFOLIO_MAX_TOKENS; a wallet's thousands of spam tokens are counted, not valued.
  const pairs = await ctx.db.query<PairRow>(
    `select x.token, x.amount::text as amount, t.decimals,
            (coalesce(t.balance_model, 'conserving') <> 'conserving'
              or t.balance_read_error is not null) as node,
            v.priceable, (count(*) over ())::text as held
       from erc20_balances x
       left join tokens t on t.chain_id = x.chain_id and t.address = x.token
       left join token_prices p on p.chain_id = x.chain_id and p.token = x.token
       cross join lateral (
         select (x.token = any(coalesce((select c.stablecoins from pricing_cursors c
                  where c.chain_id = x.chain_id), '{}'::text[]))
                 or exists (select 1 from price_history h
                  where h.chain_id = x.chain_id and h.token = x.token)) as priceable
       ) v
      where x.wallet = $1 and x.chain_id = $2
      order by v.priceable desc, p.pool_size desc nulls last, x.token
      limit $3`,
    [wallet, chain.chainId, maxTokens],
  );
  const held = Number(pairs.rows[0]?.held ?? 0);
  if (held > pairs.rows.length) notes.capped.set(chain, { valued: pairs.rows.length, held });
  const [moves, native] = await Promise.all([
    ctx.db.query<{ token: string; block: string; delta: string }>(
      `select a.token_address as token, a.block_number::text as block,
              sum(${signedErc20Delta})::text as delta
         from activity a
        where a.wallet = $1 and a.block_time >= $3 and a.chain_id = $2
          and a.block_number > $4::bigint and a.asset_type = 'erc20'
          and a.token_address = any($5::text[])
        group by a.token_address, a.block_number`,
      [
        wallet,
        chain.chainId,
        oldest.time.toISOString(),
        oldest.number.toString(),
        pairs.rows.map((p) => p.token),
      ],
    ),
    ctx.db.query<{ amount: string; updated_block: string }>(
      `select amount::text, updated_block::text from native_balances
        where wallet = $1 and chain_id = $2`,
      [wallet, chain.chainId],
    ),
  ]);
  const movesByToken = new Map<string, { block: bigint; delta: bigint }[]>();
  for (const m of moves.rows) {
    const list = movesByToken.get(m.token) ?? [];
    list.push({ block: BigInt(m.block), delta: BigInt(m.delta) });
    movesByToken.set(m.token, list);
  }
  const holdings: Holding[] = [];
  // Per day, what only the node can tell: native since its last refresh, non-conserving tokens.
  const nodeNeeds = blocks.map(() => ({ native: false, tokens: [] as string[] }));
  const nativeRow = native.rows[0];
  if (nativeRow) {
    const stored = BigInt(nativeRow.amount);
    const updated = BigInt(nativeRow.updated_block);
    const amounts = blocks.map((b, d) => {
      if (!b) return 0n;
      if (updated <= b.number) return stored;
      (nodeNeeds[d] as { native: boolean }).native = true;
      return null;
    });
    holdings.push({ token: 'native', decimals: chain.nativeDecimals, priceable: true, amounts });
  }
  for (const p of pairs.rows) {
    // Newest move first: walking the days from the newest, each move is undone once (the day
    // blocks ascend), not once per day.
    const list = (movesByToken.get(p.token) ?? []).sort((a, b) => (a.block < b.block ? 1 : -1));
    const amounts: (bigint | null)[] = new Array(blocks.length);
    let past = BigInt(p.amount);
    let next = 0;
    for (let d = blocks.length - 1; d >= 0; d--) {
      const b = blocks[d];
      if (!b) {
        amounts[d] = 0n;
        continue;
      }
      for (; next < list.length && (list[next] as { block: bigint }).block > b.number; next++) {
        past -= (list[next] as { delta: bigint }).delta;
      }
      if (!p.node && past >= 0n) amounts[d] = past;
      else {
        nodeNeeds[d]?.tokens.push(p.token);
        amounts[d] = null;
      }
    }
    holdings.push({ token: p.token, decimals: p.decimals, priceable: p.priceable, amounts });
  }
  await readFromNode(reader, wallet, chain, blocks, nodeNeeds, holdings, notes.unavailable);
  return holdings;
}

async function readFromNode(
  reader: PastStateReader | undefined,
  wallet: string,
  chain: ChainConfig,
  blocks: readonly (DayBlock | null)[],
  needs: readonly { native: boolean; tokens: string[] }[],
  holdings: Holding[],
  unavailable: Map<ChainConfig, Set<string>>,
): Promise<void> {
  const byToken = new Map(holdings.map((h) => [h.token, h]));
  const missing = new Set<string>();
  // Days resolving to the same block (no block that day) share one read.
  const reads = new Map<bigint, Promise<{ native: bigint | null; tokens: (bigint | null)[] }>>();
  await Promise.all(
    needs.map(async (need, d) => {
      const block = blocks[d];
      if (!block || (!need.native && need.tokens.length === 0)) return;
      const key = block.number;
      let read = reads.get(key);
      if (!read) {
        read = reader
          ? reader.read(chain, block.number, wallet, need)
          : Promise.resolve({ native: null, tokens: need.tokens.map(() => null) });
        reads.set(key, read);
      }
      const got = await read;
      if (need.native) {
        const h = byToken.get('native') as Holding;
        h.amounts[d] = got.native;
        if (got.native === null) missing.add('native');
      }
      need.tokens.forEach((token, i) => {
        const value = got.tokens[i] ?? null;
        (byToken.get(token) as Holding).amounts[d] = value;
        if (value === null) missing.add(token);
      });
    }),
  );
  if (missing.size > 0) unavailable.set(chain, missing);
}
