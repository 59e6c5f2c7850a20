import {
  type DecodedEvent,
  decodeCall,
  decodeLog,
  decodeUnindexedTransfer,
  type SelectorRegistry,
} from '../decode/index.js';
import { BaseError, InternalError } from '../errors/index.js';
import type { FetchedBlock } from '../rpc/rpc-types.js';
import type {
  ActivityRow,
  ActivityType,
  AssetType,
  DerivedBatch,
  Nft1155Delta,
} from './derived-batch.js';
import { type InternalTransfer, internalTransfers } from './native-transfers.js';
import { attributeSales, type SaleErc20Transfer, type SaleNftTransfer } from './nft-sales.js';
import { attachAuthorizations, senderRow } from './sent-transactions.js';
import { type PoolTokenPair, type SwapLeg, swapFromLegs, swapLeg } from './swap-legs.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Chain facts derivation needs. */
export interface DeriveContext {
  chainId: number;
  wrappedNative?: string | undefined;
  v2Factories: ReadonlySet<string>;
  v3Factories: ReadonlySet<string>;
  registry: SelectorRegistry;
  /** Currencies NFT sales may be paid in (native, wrapped native, stablecoins). */
  paymentTokens: readonly string[];
  /** Whether `FetchedBlock.traces` is populated. */
  traces: boolean;
  /**
   * token0/token1 of a Swap emitter checked beforehand (null: not a pool). When set, only Swaps of
   * verified pools make swap rows; unset (pure tests), every Swap-shaped event counts.
   */
  poolTokens?: (address: string) => PoolTokenPair | null | undefined;
  /** Contracts verified as ERC721 whose Transfer carries no indexed arguments. */
  isErc721?: (address: string) => boolean;
}

/** Calls whose effect on the sender is fully shown by the event rows of the same transaction. */
const COVERED_CALLS = new Set([
  'transfer',
  'transferFrom',
  'approve',
  'increaseAllowance',
  'decreaseAllowance',
  'safeTransferFrom',
  'safeBatchTransferFrom',
  'setApprovalForAll',
  'deposit',
  'withdraw',
]);

/** Orders of `sub_index` at log_index -1 (transaction-level rows). */
const SUB_CALL = 0;
const SUB_NATIVE = 1;
const SUB_INTERNAL = 2;
const SUB_SWAP = 1000;

/**
 * Turns fetched blocks into every row the store keeps: blocks, transactions, logs, activity per
 * wallet, ERC20 deltas, NFT moves, pool events, sales. Pure: no I/O, so ranges can be derived
 * concurrently; state-dependent steps (pools, balances) are applied by the writer in block order.
 */
export function deriveBatch(fetched: readonly FetchedBlock[], ctx: DeriveContext): DerivedBatch {
  const first = fetched[0];
  const last = fetched[fetched.length - 1];
  if (!first || !last) throw new InternalError('deriveBatch needs at least one block');
  const out = emptyBatch(BigInt(first.block.number), BigInt(last.block.number));
  for (const fb of fetched) deriveBlock(fb, ctx, out);
  return out;
}

/**
 * A batch with no rows covering `fromBlock..toBlock`.
 *
 * @example
 * const batch = emptyBatch(10n, 10n); // batch.activity.length === 0
 */
export function emptyBatch(fromBlock: bigint, toBlock: bigint): DerivedBatch {
  return {
    fromBlock,
    toBlock,
    blocks: [],
    txs: [],
    logs: [],
    activity: [],
    erc20Deltas: new Map(),
    nativeTouched: new Set(),
    nft721: new Map(),
    nft1155: new Map(),
    tokens: new Map(),
    nfts: new Map(),
    metadataRefresh: [],
    poolEvents: [],
    sales: [],
    wrapperMoves: [],
    eventCount: 0,
  };
}

function deriveBlock(fb: FetchedBlock, ctx: DeriveContext, out: DerivedBatch): void {
  const { block, receipts, traces } = fb;
  const blockNumber = BigInt(block.number);
  const time = new Date(Number(BigInt(block.timestamp)) * 1000);
  out.blocks.push({
    number: blockNumber,
    hash: block.hash.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    time,
    txCount: block.transactions.length,
  });
  touch(out, block.miner.toLowerCase());
  for (const w of block.withdrawals ?? []) touch(out, w.address.toLowerCase());

  block.transactions.forEach((tx, i) => {
    const receipt = receipts[i];
    if (!receipt) {
      throw new BaseError(`missing receipt for tx ${i} of block ${blockNumber}`, {
        code: 'RECEIPT_MISSING',
      });
    }
    const txIndex = Number(tx.transactionIndex);
    const txHash = tx.hash.toLowerCase();
    const from = tx.from.toLowerCase();
    const to = tx.to ? tx.to.toLowerCase() : null;
    const created = receipt.contractAddress ? receipt.contractAddress.toLowerCase() : null;
    const status = receipt.status === undefined ? 1 : Number(BigInt(receipt.status));
    const value = BigInt(tx.value);
    const input = tx.input ?? '0x';
    out.txs.push({
      blockNumber,
      txIndex,
      hash: txHash,
      from,
      to,
      contractAddress: created,
      value,
      selector: input.length >= 10 ? input.slice(0, 10).toLowerCase() : null,
      input,
      status,
      gasUsed: BigInt(receipt.gasUsed),
      effectiveGasPrice: receipt.effectiveGasPrice ? BigInt(receipt.effectiveGasPrice) : null,
    });
    touch(out, from);
    if (to) touch(out, to);
    if (created) touch(out, created);

    const rows: ActivityRow[] = [];
    // Rows are built as fixed-shape literals (no object spread): this is the hottest loop.
    const add = (
      wallet: string,
      type: ActivityType,
      assetType: AssetType | null,
      logIndex: number,
      subIndex: number,
      from: string | null,
      to: string | null,
      f: Partial<Pick<ActivityRow, 'tokenAddress' | 'value' | 'tokenId' | 'extra'>>,
    ) => {
      if (wallet === ZERO_ADDRESS) return;
      rows.push({
        wallet,
        blockNumber,
        blockTime: time,
        txIndex,
        logIndex,
        subIndex,
        txHash,
        type,
        assetType,
        tokenAddress: f.tokenAddress ?? null,
        from,
        to,
        value: f.value ?? null,
        tokenId: f.tokenId ?? null,
        extra: f.extra ?? null,
      });
    };
    /** send/receive/mint/burn/transfer rows for one movement. */
    const movement = (
      src: string,
      dst: string,
      assetType: AssetType,
      logIndex: number,
      subIndex: number,
      f: Partial<Pick<ActivityRow, 'tokenAddress' | 'value' | 'tokenId' | 'extra'>>,
    ) => {
      if (src === ZERO_ADDRESS) add(dst, 'mint', assetType, logIndex, subIndex, src, dst, f);
      else if (dst === ZERO_ADDRESS) add(src, 'burn', assetType, logIndex, subIndex, src, dst, f);
      else if (src === dst) add(src, 'transfer', assetType, logIndex, subIndex, src, dst, f);
      else {
        add(src, 'send', assetType, logIndex, subIndex, src, dst, f);
        add(dst, 'receive', assetType, logIndex, subIndex, src, dst, f);
      }
    };

    // Native value: top-level, then internal transfers from the trace.
    const nativeTarget = to ?? created;
    if (status === 1 && value > 0n && nativeTarget) {
      movement(from, nativeTarget, 'native', -1, SUB_NATIVE, { value });
    }
    let internal: InternalTransfer[] | undefined;
    if (ctx.traces && traces) {
      const trace = traces[i];
      internal = status === 1 && trace ? internalTransfers(trace) : [];
      internal.forEach((t, k) => {
        touch(out, t.from);
        touch(out, t.to);
        movement(t.from, t.to, 'native', -1, SUB_INTERNAL + k, {
          value: t.value,
          extra: { internal: true },
        });
      });
    }

    // Logs.
    const swapLogs: { logIndex: number; pool: string; dex: string }[] = [];
    const legs: SwapLeg[] = [];
    const onSwap = (ev: Extract<DecodedEvent, { kind: 'v2_swap' | 'v3_swap' }>, li: number) => {
      if (ctx.poolTokens) {
        const tokens = ctx.poolTokens(ev.address);
        if (!tokens) return; // a Swap-shaped event of something that is not a pool
        legs.push(swapLeg(ev, li, tokens));
      }
      swapLogs.push({
        logIndex: li,
        pool: ev.address,
        dex: ev.kind === 'v2_swap' ? 'uniswap_v2' : 'uniswap_v3',
      });
    };
    const nftTransfers: SaleNftTransfer[] = [];
    const erc20Transfers: SaleErc20Transfer[] = [];
    const decodedInTx: { logIndex: number; ev: DecodedEvent }[] = [];
    for (const l of receipt.logs) {
      const logIndex = Number(l.logIndex);
      const address = l.address.toLowerCase() as `0x${string}`;
      const topics = l.topics.map((t) => t.toLowerCase());
      const raw = { address, topics, data: l.data, logIndex, txIndex };
      const ev =
        decodeLog(raw) ?? (ctx.isErc721 ? decodeUnindexedTransfer(raw, ctx.isErc721) : null);
      out.logs.push({
        blockNumber,
        txIndex,
        logIndex,
        address,
        topics,
        data: l.data,
        decoded: ev !== null,
      });
      if (ev) decodedInTx.push({ logIndex, ev });
    }
    for (let k = 0; k < decodedInTx.length; k++) {
      const { logIndex, ev } = decodedInTx[k] as { logIndex: number; ev: DecodedEvent };
      out.eventCount++;
      switch (ev.kind) {
        case 'erc20_transfer': {
          seenToken(out, ev.address, 'erc20', blockNumber);
          movement(ev.from, ev.to, 'erc20', logIndex, 0, {
            tokenAddress: ev.address,
            value: ev.value,
          });
          erc20Delta(out, ev.from, ev.address, -ev.value, blockNumber, time, 'out');
          erc20Delta(
            out,
            ev.to,
            ev.address,
            ev.value,
            blockNumber,
            time,
            ev.from === ev.to ? 'self' : 'in',
          );
          erc20Transfers.push({
            logIndex,
            token: ev.address,
            from: ev.from,
            to: ev.to,
            value: ev.value,
          });
          break;
        }
        case 'erc721_transfer': {
          seenToken(out, ev.address, 'erc721', blockNumber);
          movement(ev.from, ev.to, 'erc721', logIndex, 0, {
            tokenAddress: ev.address,
            value: 1n,
            tokenId: ev.tokenId,
          });
          const key = `${ev.address}|${ev.tokenId}`;
          out.nft721.set(key, {
            contract: ev.address,
            tokenId: ev.tokenId,
            owner: ev.to === ZERO_ADDRESS ? null : ev.to,
            time,
            block: blockNumber,
          });
          out.nfts.set(key, { contract: ev.address, tokenId: ev.tokenId, standard: 'erc721' });
          nftTransfers.push({
            logIndex,
            contract: ev.address,
            tokenId: ev.tokenId,
            from: ev.from,
            to: ev.to,
            quantity: 1n,
          });
          break;
        }
        case 'erc1155_transfer': {
          seenToken(out, ev.address, 'erc1155', blockNumber);
          ev.ids.forEach((id, j) => {
            const qty = ev.values[j] ?? 0n;
            movement(ev.from, ev.to, 'erc1155', logIndex, j, {
              tokenAddress: ev.address,
              value: qty,
              tokenId: id,
              extra: ev.batch ? { batch: true, operator: ev.operator } : { operator: ev.operator },
            });
            nft1155Delta(out, ev.from, ev.address, id, -qty, null, blockNumber);
            nft1155Delta(
              out,
              ev.to,
              ev.address,
              id,
              qty,
              { time, block: blockNumber },
              blockNumber,
            );
            out.nfts.set(`${ev.address}|${id}`, {
              contract: ev.address,
              tokenId: id,
              standard: 'erc1155',
            });
            nftTransfers.push({
              logIndex,
              contract: ev.address,
              tokenId: id,
              from: ev.from,
              to: ev.to,
              quantity: qty,
            });
          });
          break;
        }
        case 'erc20_approval':
          seenToken(out, ev.address, 'erc20', blockNumber);
          add(ev.owner, 'approve', 'erc20', logIndex, 0, ev.owner, ev.spender, {
            tokenAddress: ev.address,
            value: ev.value,
          });
          break;
        case 'erc721_approval':
          seenToken(out, ev.address, 'erc721', blockNumber);
          add(ev.owner, 'approve', 'erc721', logIndex, 0, ev.owner, ev.approved, {
            tokenAddress: ev.address,
            tokenId: ev.tokenId,
          });
          break;
        case 'approval_for_all':
          seenToken(out, ev.address, 'unknown', blockNumber);
          // asset_type is settled from the token's standard by resolveApprovalStandards.
          add(ev.owner, 'approve', 'erc721', logIndex, 0, ev.owner, ev.operator, {
            tokenAddress: ev.address,
            extra: { operator: true, approved: ev.approved },
          });
          break;
        case 'weth_deposit':
        case 'weth_withdrawal': {
          // Deposit/Withdrawal of any contract: the registry's wrapped native moves balances
          // here; any other emitter is a WETH9-clone candidate, kept aside until its metadata
          // says it is an ERC20 (src/reconcile/wrapper-moves.ts).
          const registered = ev.address === ctx.wrappedNative;
          const holder = ev.kind === 'weth_deposit' ? ev.dst : ev.src;
          // Some wrapped-native contracts also emit a mint/burn Transfer: don't count it twice.
          const twin = decodedInTx.some(
            (d) =>
              d.ev.kind === 'erc20_transfer' &&
              d.ev.address === ev.address &&
              d.ev.value === ev.wad &&
              (ev.kind === 'weth_deposit'
                ? d.ev.from === ZERO_ADDRESS && d.ev.to === holder
                : d.ev.to === ZERO_ADDRESS && d.ev.from === holder),
          );
          if (twin) break;
          seenToken(out, ev.address, registered ? 'erc20' : 'unknown', blockNumber);
          const deposit = ev.kind === 'weth_deposit';
          const rowCount = rows.length;
          add(
            holder,
            deposit ? 'mint' : 'burn',
            'erc20',
            logIndex,
            0,
            deposit ? ZERO_ADDRESS : holder,
            deposit ? holder : ZERO_ADDRESS,
            {
              tokenAddress: ev.address,
              value: ev.wad,
              extra: { event: deposit ? 'Deposit' : 'Withdrawal' },
            },
          );
          if (registered)
            erc20Delta(
              out,
              holder,
              ev.address,
              deposit ? ev.wad : -ev.wad,
              blockNumber,
              time,
              deposit ? 'in' : 'out',
            );
          else if (holder !== ZERO_ADDRESS) {
            out.wrapperMoves.push({
              token: ev.address,
              wallet: holder,
              delta: deposit ? ev.wad : -ev.wad,
              block: blockNumber,
              time,
              row: rows.length > rowCount ? (rows[rows.length - 1] as ActivityRow) : null,
            });
          }
          erc20Transfers.push({
            logIndex,
            token: ev.address,
            from: deposit ? ZERO_ADDRESS : holder,
            to: deposit ? holder : ZERO_ADDRESS,
            value: ev.wad,
          });
          break;
        }
        case 'v2_pair_created':
          if (ctx.v2Factories.has(ev.address)) {
            out.poolEvents.push({
              kind: 'created',
              dex: 'uniswap_v2',
              factory: ev.address,
              pool: ev.pair,
              token0: ev.token0,
              token1: ev.token1,
              fee: null,
              tickSpacing: null,
              block: blockNumber,
            });
          }
          break;
        case 'v3_pool_created':
          if (ctx.v3Factories.has(ev.address)) {
            out.poolEvents.push({
              kind: 'created',
              dex: 'uniswap_v3',
              factory: ev.address,
              pool: ev.pool,
              token0: ev.token0,
              token1: ev.token1,
              fee: ev.fee,
              tickSpacing: ev.tickSpacing,
              block: blockNumber,
            });
          }
          break;
        case 'v2_sync':
          out.poolEvents.push({
            kind: 'sync',
            pool: ev.address,
            reserve0: ev.reserve0,
            reserve1: ev.reserve1,
            block: blockNumber,
            time,
          });
          break;
        case 'v2_swap':
          onSwap(ev, logIndex);
          break;
        case 'v3_initialize':
          out.poolEvents.push({
            kind: 'v3_state',
            pool: ev.address,
            sqrtPriceX96: ev.sqrtPriceX96,
            tick: ev.tick,
            liquidity: null,
            block: blockNumber,
            time,
          });
          break;
        case 'v3_swap':
          onSwap(ev, logIndex);
          out.poolEvents.push({
            kind: 'v3_state',
            pool: ev.address,
            sqrtPriceX96: ev.sqrtPriceX96,
            tick: ev.tick,
            liquidity: ev.liquidity,
            block: blockNumber,
            time,
          });
          break;
        case 'v3_liquidity':
          out.poolEvents.push({
            kind: 'v3_liquidity',
            pool: ev.address,
            tickLower: ev.tickLower,
            tickUpper: ev.tickUpper,
            delta: ev.delta,
            block: blockNumber,
            time,
          });
          break;
        case 'metadata_update':
          out.metadataRefresh.push({
            contract: ev.address,
            fromTokenId: ev.fromTokenId,
            toTokenId: ev.toTokenId,
            block: blockNumber,
          });
          break;
      }
    }

    // One swap row for the trader (the sender), from its net token flows in the transaction.
    let swapped = false;
    const lastSwap = swapLogs[swapLogs.length - 1];
    if (status === 1 && lastSwap) {
      const net = new Map<string, bigint>();
      const bump = (token: string, v: bigint) => net.set(token, (net.get(token) ?? 0n) + v);
      for (const t of erc20Transfers) {
        if (t.to === from) bump(t.token, t.value);
        if (t.from === from) bump(t.token, -t.value);
      }
      if (value > 0n && to) bump('native', -value);
      for (const t of internal ?? []) {
        if (t.to === from) bump('native', t.value);
        if (t.from === from) bump('native', -t.value);
      }
      let sold: [string, bigint] | undefined;
      let bought: [string, bigint] | undefined;
      for (const entry of net) {
        if (entry[1] < 0n && (!sold || entry[1] < sold[1])) sold = entry;
        if (entry[1] > 0n && (!bought || entry[1] > bought[1])) bought = entry;
      }
      if (!sold || !bought) {
        // Flows show one side only (tokens sent to the pair earlier): the pools' events tell.
        const fromLegs = swapFromLegs(legs, from);
        if (fromLegs) {
          sold = [fromLegs.sold[0], -fromLegs.sold[1]];
          bought = fromLegs.bought;
        }
      }
      if (sold && bought) {
        swapped = true;
        add(from, 'swap', 'erc20', lastSwap.logIndex, SUB_SWAP, from, from, {
          extra: {
            from_token_address: sold[0],
            from_token_value: (-sold[1]).toString(),
            to_token_address: bought[0],
            to_token_value: bought[1].toString(),
            pools: [...new Set(swapLogs.map((s) => s.pool))],
            dex: lastSwap.dex,
          },
        });
      }
    }

    // A call row for the sender, unless the event rows already tell the whole story.
    if (input.length > 2) {
      const fn = decodeCall(input, ctx.registry);
      const senderRows = rows.some((r) => r.wallet === from);
      const covered =
        status === 1 && (swapped || (fn !== null && COVERED_CALLS.has(fn.name) && senderRows));
      if (!covered) {
        add(from, 'call', null, -1, SUB_CALL, from, to ?? created, {
          value,
          extra: {
            function: to ? fn : null,
            selector: to && input.length >= 10 ? input.slice(0, 10).toLowerCase() : null,
            status: status === 1 ? 'success' : 'reverted',
            ...(to ? {} : { contract_creation: true }),
          },
        });
      }
    }

    // Every transaction the wallet sent is in its feed once, even one that moved nothing.
    const own = senderRow({ from, to: to ?? created, input, status, rows });
    if (own) {
      add(from, own.type, own.assetType, -1, SUB_CALL, from, to ?? created, {
        value,
        extra: own.extra,
      });
    }
    attachAuthorizations(tx, from, rows);

    if (status === 1 && nftTransfers.length > 0) {
      const sales = attributeSales(
        {
          chainId: ctx.chainId,
          blockNumber,
          blockTime: time,
          txHash,
          from,
          to,
          value,
          nftTransfers,
          erc20Transfers,
          internalTransfers: ctx.traces ? internal : undefined,
        },
        ctx.paymentTokens,
      );
      out.sales.push(...sales);
    }
    for (const r of rows) out.activity.push(r);
  });
}

function touch(out: DerivedBatch, address: string): void {
  if (address !== ZERO_ADDRESS) out.nativeTouched.add(address);
}

function seenToken(
  out: DerivedBatch,
  address: string,
  hint: 'erc20' | 'erc721' | 'erc1155' | 'unknown',
  block: bigint,
): void {
  const prev = out.tokens.get(address);
  if (!prev) out.tokens.set(address, { hint, firstBlock: block });
  else if (prev.hint === 'unknown' && hint !== 'unknown') prev.hint = hint;
}

/**
 * Adds a movement to a (wallet, token) pair's batch delta: `in` is a receipt (its first time is
 * kept), `out` a send (even of 0), `self` a self-transfer, which is both.
 */
function erc20Delta(
  out: DerivedBatch,
  wallet: string,
  token: string,
  delta: bigint,
  block: bigint,
  time: Date,
  role: 'in' | 'out' | 'self',
): void {
  if (wallet === ZERO_ADDRESS) return;
  const key = `${wallet}|${token}`;
  const received = role !== 'out';
  const sent = role !== 'in';
  const prev = out.erc20Deltas.get(key);
  if (prev) {
    prev.delta += delta;
    prev.block = block;
    if (received && !prev.acquired) prev.acquired = time;
    if (sent) prev.sent = true;
  } else {
    out.erc20Deltas.set(key, {
      wallet,
      token,
      delta,
      block,
      ...(received ? { acquired: time } : {}),
      sent,
    });
  }
}

function nft1155Delta(
  out: DerivedBatch,
  wallet: string,
  contract: string,
  tokenId: bigint,
  delta: bigint,
  acquired: Nft1155Delta['acquired'],
  block: bigint,
): void {
  if (wallet === ZERO_ADDRESS) return;
  const key = `${wallet}|${contract}|${tokenId}`;
  const prev = out.nft1155.get(key);
  if (prev) {
    prev.delta += delta;
    if (acquired && delta > 0n) prev.acquired = acquired;
    prev.block = block;
  } else {
    out.nft1155.set(key, {
      wallet,
      contract,
      tokenId,
      delta,
      acquired: delta > 0n ? acquired : null,
      block,
    });
  }
}

/** Sets ApprovalForAll rows' asset type from the tokens' standards (erc1155 or erc721). */
export function resolveApprovalStandards(
  batch: DerivedBatch,
  standardOf: (token: string) => string | undefined,
): void {
  for (const row of batch.activity) {
    if (row.type === 'approve' && row.extra?.operator === true && row.tokenAddress) {
      row.assetType = standardOf(row.tokenAddress) === 'erc1155' ? 'erc1155' : 'erc721';
    }
  }
}
