import { encodeAbiParameters, encodeFunctionData, type Hex, parseAbi, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { standardRegistry, TOPIC } from '../decode/index.js';
import type { CallFrame, FetchedBlock, RpcLogEntry } from '../rpc/rpc-types.js';
import { applyPoolEvents, type PoolState } from './apply-pool-events.js';
import { type DeriveContext, deriveBatch, resolveApprovalStandards } from './derive-batch.js';
import { internalTransfers } from './native-transfers.js';
import { decodeText } from './token-metadata.js';

const USER = '0x1111111111111111111111111111111111111111';
const BOB = '0x2222222222222222222222222222222222222222';
const ROUTER = '0x7a250d5630b4cf539739df2c5dacb4c659f2488d';
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const PAIR = '0x3333333333333333333333333333333333333333';
const TOKEN = '0x4444444444444444444444444444444444444444';
const NFT = '0x5555555555555555555555555555555555555555';
const ZERO = '0x0000000000000000000000000000000000000000';

const ctx: DeriveContext = {
  chainId: 1,
  wrappedNative: WETH,
  v2Factories: new Set(),
  v3Factories: new Set(),
  registry: standardRegistry(),
  paymentTokens: [WETH],
  traces: true,
};

const pad = (v: string | bigint) =>
  `0x${(typeof v === 'bigint' ? v.toString(16) : v.slice(2)).padStart(64, '0')}` as Hex;
const word = (v: bigint) => encodeAbiParameters([{ type: 'uint256' }], [v]);
let logIndex = 0;
function log(address: string, topics: Hex[], data: Hex = '0x'): RpcLogEntry {
  return {
    address: address as Hex,
    topics,
    data,
    logIndex: `0x${(logIndex++).toString(16)}`,
    transactionIndex: '0x0',
  };
}

interface TxSpec {
  from: string;
  to: string | null;
  value?: bigint;
  input?: Hex;
  status?: 0 | 1;
  logs?: RpcLogEntry[];
  trace?: CallFrame;
}

function block(n: number, txs: TxSpec[]): FetchedBlock {
  const hash = pad(BigInt(1000 + n));
  return {
    block: {
      number: `0x${n.toString(16)}`,
      hash,
      parentHash: pad(BigInt(999 + n)),
      timestamp: '0x6553f100',
      miner: ZERO,
      transactions: txs.map((t, i) => ({
        hash: pad(BigInt(n * 100 + i)),
        from: t.from as Hex,
        to: (t.to ?? null) as Hex | null,
        value: `0x${(t.value ?? 0n).toString(16)}`,
        input: t.input ?? '0x',
        transactionIndex: `0x${i.toString(16)}`,
      })),
    },
    receipts: txs.map((t, i) => ({
      transactionHash: pad(BigInt(n * 100 + i)),
      transactionIndex: `0x${i.toString(16)}`,
      blockHash: hash,
      status: t.status === 0 ? '0x0' : '0x1',
      gasUsed: '0x5208',
      contractAddress: null,
      logs: (t.logs ?? []).map((l) => ({ ...l, transactionIndex: `0x${i.toString(16)}` as Hex })),
    })),
    traces: txs.map(
      (t) => t.trace ?? { type: 'CALL', from: t.from as Hex, to: (t.to ?? ZERO) as Hex },
    ),
  };
}

describe('deriveBatch', () => {
  it('turns an ETH -> token router swap into send + receive + one swap row, without a call row', () => {
    logIndex = 0;
    const input = encodeFunctionData({
      abi: parseAbi(['function swapExactETHForTokens(uint256, address[], address, uint256)']),
      args: [1n, [WETH, TOKEN], USER, 9n],
    });
    const b = deriveBatch(
      [
        block(5, [
          {
            from: USER,
            to: ROUTER,
            value: 10n ** 18n,
            input,
            logs: [
              log(WETH, [TOPIC.deposit, pad(ROUTER)], word(10n ** 18n)),
              log(WETH, [TOPIC.transfer, pad(ROUTER), pad(PAIR)], word(10n ** 18n)),
              log(TOKEN, [TOPIC.transfer, pad(PAIR), pad(USER)], word(500n)),
              log(PAIR, [TOPIC.sync], `${word(1n)}${word(2n).slice(2)}` as Hex),
              log(
                PAIR,
                [TOPIC.v2Swap, pad(ROUTER), pad(USER)],
                encodeAbiParameters(
                  [
                    { type: 'uint256' },
                    { type: 'uint256' },
                    { type: 'uint256' },
                    { type: 'uint256' },
                  ],
                  [10n ** 18n, 0n, 0n, 500n],
                ),
              ),
            ],
          },
        ]),
      ],
      ctx,
    );
    const userRows = b.activity.filter((r) => r.wallet === USER).map((r) => [r.type, r.assetType]);
    expect(userRows).toEqual([
      ['send', 'native'],
      ['receive', 'erc20'],
      ['swap', 'erc20'],
    ]);
    const swap = b.activity.find((r) => r.type === 'swap');
    expect(swap?.extra).toMatchObject({
      from_token_address: 'native',
      from_token_value: (10n ** 18n).toString(),
      to_token_address: TOKEN,
      to_token_value: '500',
      pools: [PAIR],
      dex: 'uniswap_v2',
    });
    expect(b.activity.some((r) => r.type === 'call')).toBe(false);
    // WETH minted to the router then moved to the pair: the router nets zero.
    expect(b.erc20Deltas.get(`${ROUTER}|${WETH}`)?.delta).toBe(0n);
    expect(b.erc20Deltas.get(`${PAIR}|${WETH}`)?.delta).toBe(10n ** 18n);
    expect(b.eventCount).toBe(5);
  });

  it('counts a wrapped-native deposit once when the contract also emits a mint Transfer', () => {
    logIndex = 0;
    const b = deriveBatch(
      [
        block(6, [
          {
            from: USER,
            to: WETH,
            value: 7n,
            input: '0xd0e30db0',
            logs: [
              log(WETH, [TOPIC.transfer, pad(ZERO), pad(USER)], word(7n)),
              log(WETH, [TOPIC.deposit, pad(USER)], word(7n)),
            ],
          },
        ]),
      ],
      ctx,
    );
    expect(b.erc20Deltas.get(`${USER}|${WETH}`)?.delta).toBe(7n);
    expect(b.activity.filter((r) => r.type === 'mint')).toHaveLength(1);
  });

  it('keeps a call row (decoded) for unknown-effect calls and for reverted transactions only', () => {
    logIndex = 0;
    const vote = encodeFunctionData({
      abi: parseAbi(['function castVote(uint256 proposalId, uint8 support)']),
      args: [7n, 1],
    });
    const transfer = encodeFunctionData({
      abi: parseAbi(['function transfer(address to, uint256 value)']),
      args: [BOB, 10n],
    });
    const b = deriveBatch(
      [
        block(7, [
          { from: USER, to: PAIR, input: vote },
          { from: USER, to: TOKEN, input: transfer, status: 0, value: 5n },
        ]),
      ],
      ctx,
    );
    expect(b.activity.map((r) => [r.type, r.extra?.status])).toEqual([
      ['call', 'success'],
      ['call', 'reverted'],
    ]);
    expect(b.activity[0]?.extra?.function).toMatchObject({
      name: 'castVote',
      inputs: [
        { name: 'proposalId', type: 'uint256', value: '7' },
        { name: 'support', type: 'uint8', value: '1' },
      ],
    });
    expect(b.activity.some((r) => r.assetType === 'native')).toBe(false); // reverted value never moved
  });

  it('emits one row per ERC1155 batch item and tracks per-id deltas and acquisitions', () => {
    logIndex = 0;
    const data = encodeAbiParameters(
      [{ type: 'uint256[]' }, { type: 'uint256[]' }],
      [
        [1n, 2n],
        [3n, 4n],
      ],
    );
    const b = deriveBatch(
      [
        block(8, [
          {
            from: USER,
            to: NFT,
            logs: [log(NFT, [TOPIC.transferBatch, pad(USER), pad(USER), pad(BOB)], data)],
          },
        ]),
      ],
      ctx,
    );
    const bob = b.activity.filter((r) => r.wallet === BOB);
    expect(bob.map((r) => [r.type, r.tokenId, r.value, r.subIndex])).toEqual([
      ['receive', 1n, 3n, 0],
      ['receive', 2n, 4n, 1],
    ]);
    expect(b.nft1155.get(`${BOB}|${NFT}|2`)).toMatchObject({ delta: 4n });
    expect(b.nft1155.get(`${USER}|${NFT}|1`)).toMatchObject({ delta: -3n, acquired: null });
  });

  it('resolves ApprovalForAll asset type from the token standard', () => {
    logIndex = 0;
    const b = deriveBatch(
      [
        block(9, [
          {
            from: USER,
            to: NFT,
            logs: [log(NFT, [TOPIC.approvalForAll, pad(USER), pad(BOB)], word(1n))],
          },
        ]),
      ],
      ctx,
    );
    resolveApprovalStandards(b, () => 'erc1155');
    expect(b.activity[0]).toMatchObject({ type: 'approve', assetType: 'erc1155', to: BOB });
  });
});

describe('internalTransfers', () => {
  it('keeps value-moving frames and drops reverted subtrees', () => {
    const trace: CallFrame = {
      type: 'CALL',
      from: USER,
      to: ROUTER,
      value: '0x0',
      calls: [
        { type: 'CALL', from: ROUTER, to: BOB, value: '0x5' },
        {
          type: 'CALL',
          from: ROUTER,
          to: PAIR,
          value: '0x7',
          error: 'execution reverted',
          calls: [{ type: 'CALL', from: PAIR, to: BOB, value: '0x9' }],
        },
        { type: 'DELEGATECALL', from: ROUTER, to: TOKEN, value: '0x1' },
        { type: 'STATICCALL', from: ROUTER, to: TOKEN },
      ],
    };
    expect(internalTransfers(trace)).toEqual([{ from: ROUTER, to: BOB, value: 5n }]);
  });
});

describe('applyPoolEvents', () => {
  const v3: PoolState = {
    address: PAIR,
    dex: 'uniswap_v3',
    factory: ROUTER,
    token0: TOKEN,
    token1: WETH,
    fee: 3000,
    tickSpacing: 60,
    createdBlock: 1n,
    reserve0: null,
    reserve1: null,
    sqrtPriceX96: 2n ** 96n,
    tick: 0,
    liquidity: 100n,
    updatedBlock: 1n,
    updatedTime: new Date(0),
  };
  it('adds in-range liquidity only, ignores untracked pools, and does not mutate the cache', () => {
    const known = new Map([[PAIR, v3]]);
    const time = new Date(1000);
    const out = applyPoolEvents(
      [
        {
          kind: 'v3_liquidity',
          pool: PAIR,
          tickLower: -60,
          tickUpper: 60,
          delta: 50n,
          block: 2n,
          time,
        },
        {
          kind: 'v3_liquidity',
          pool: PAIR,
          tickLower: 60,
          tickUpper: 120,
          delta: 999n,
          block: 2n,
          time,
        },
        { kind: 'sync', pool: BOB, reserve0: 1n, reserve1: 1n, block: 2n, time },
      ],
      known,
    );
    expect(out.changed).toHaveLength(1);
    expect(out.changed[0]?.liquidity).toBe(150n);
    expect(out.states).toHaveLength(1);
    expect(known.get(PAIR)?.liquidity).toBe(100n);
  });
});

describe('decodeText', () => {
  it('reads ABI strings and bytes32 symbols, rejects garbage', () => {
    expect(decodeText(encodeAbiParameters([{ type: 'string' }], ['Maker']))).toBe('Maker');
    expect(decodeText(stringToHex('MKR', { size: 32 }))).toBe('MKR');
    expect(decodeText('0x1234')).toBeNull();
    expect(decodeText(pad(0n))).toBeNull();
  });
});
