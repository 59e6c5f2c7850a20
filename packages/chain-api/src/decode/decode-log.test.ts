import {
  type AbiParameter,
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeLog } from './decode-log.js';
import type { RawLog } from './decoded-event.js';
import { indexedEventsAbi, TOPIC } from './event-signatures.js';

const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const C = '0x3333333333333333333333333333333333333333';
const TOKEN = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';

function log(topics: readonly (string | null)[], data: Hex): RawLog {
  return { address: TOKEN, topics: topics as string[], data, logIndex: 0, txIndex: 0 };
}
const word = (v: bigint) => encodeAbiParameters([{ type: 'uint256' }], [v]);

describe('decodeLog', () => {
  it('decodes an ERC20 Transfer (3 topics) and an ERC721 Transfer (4 topics)', () => {
    const t20 = log([TOPIC.transfer, pad(A), pad(B)], word(10n ** 24n));
    expect(decodeLog(t20)).toEqual({
      kind: 'erc20_transfer',
      address: TOKEN,
      from: A,
      to: B,
      value: 10n ** 24n,
    });
    const t721 = log([TOPIC.transfer, pad(A), pad(B), pad(77n)], '0x');
    expect(decodeLog(t721)).toMatchObject({
      kind: 'erc721_transfer',
      tokenId: 77n,
      from: A,
      to: B,
    });
  });

  it('decodes approvals of both standards and ApprovalForAll', () => {
    expect(decodeLog(log([TOPIC.approval, pad(A), pad(B)], word(5n)))).toMatchObject({
      kind: 'erc20_approval',
      owner: A,
      spender: B,
      value: 5n,
    });
    expect(decodeLog(log([TOPIC.approval, pad(A), pad(B), pad(9n)], '0x'))).toMatchObject({
      kind: 'erc721_approval',
      approved: B,
      tokenId: 9n,
    });
    expect(decodeLog(log([TOPIC.approvalForAll, pad(A), pad(C)], word(1n)))).toMatchObject({
      kind: 'approval_for_all',
      operator: C,
      approved: true,
    });
    expect(decodeLog(log([TOPIC.approvalForAll, pad(A), pad(C)], word(2n)))).toBeNull();
  });

  it('agrees with viem on every indexed event encoded by viem', () => {
    // `ignore`: fields the indexer deliberately doesn't keep.
    const cases: {
      eventName: string;
      args: Record<string, unknown>;
      abiIndex: number;
      ignore?: string[];
    }[] = [
      {
        eventName: 'TransferSingle',
        abiIndex: 3,
        args: { operator: A, from: A, to: B, id: 5n, value: 3n },
      },
      {
        eventName: 'TransferBatch',
        abiIndex: 4,
        args: { operator: A, from: A, to: B, ids: [1n, 2n, 3n], values: [10n, 20n, 30n] },
      },
      { eventName: 'Deposit', abiIndex: 5, args: { dst: A, wad: 10n ** 18n } },
      { eventName: 'Withdrawal', abiIndex: 6, args: { src: A, wad: 10n ** 17n } },
      {
        eventName: 'PairCreated',
        abiIndex: 7,
        args: { token0: A, token1: B, pair: C, '': 1n },
        ignore: [''],
      },
      { eventName: 'Sync', abiIndex: 8, args: { reserve0: 123n, reserve1: 456n } },
      {
        eventName: 'Swap',
        abiIndex: 9,
        args: { sender: A, to: B, amount0In: 1n, amount1In: 0n, amount0Out: 0n, amount1Out: 7n },
      },
      {
        eventName: 'PoolCreated',
        abiIndex: 10,
        args: { token0: A, token1: B, fee: 3000, tickSpacing: 60, pool: C },
      },
      { eventName: 'Initialize', abiIndex: 11, args: { sqrtPriceX96: 2n ** 96n, tick: -887272 } },
      {
        eventName: 'Swap',
        abiIndex: 12,
        args: {
          sender: A,
          recipient: B,
          amount0: -5000n,
          amount1: 10n ** 20n,
          sqrtPriceX96: 79228162514264337593543950336n,
          liquidity: 10n ** 18n,
          tick: -200,
        },
      },
      {
        eventName: 'Mint',
        abiIndex: 13,
        args: {
          sender: A,
          owner: B,
          tickLower: -60,
          tickUpper: 60,
          amount: 999n,
          amount0: 1n,
          amount1: 2n,
        },
        ignore: ['sender', 'owner', 'amount0', 'amount1'],
      },
      {
        eventName: 'Burn',
        abiIndex: 14,
        args: { owner: B, tickLower: -120, tickUpper: 120, amount: 555n, amount0: 1n, amount1: 2n },
        ignore: ['owner', 'amount0', 'amount1'],
      },
      { eventName: 'MetadataUpdate', abiIndex: 15, args: { _tokenId: 42n } },
      {
        eventName: 'BatchMetadataUpdate',
        abiIndex: 16,
        args: { _fromTokenId: 1n, _toTokenId: 9n },
      },
    ];
    for (const c of cases) {
      const ev = indexedEventsAbi[c.abiIndex];
      if (ev?.type !== 'event') throw new Error('bad index');
      const abi = [ev];
      const topics = encodeEventTopics({ abi, args: c.args } as never) as Hex[];
      const inputs = ev.inputs as readonly AbiParameter[] as readonly (AbiParameter & {
        indexed?: boolean;
      })[];
      const nonIndexed = inputs.filter((i) => !i.indexed);
      const data = encodeAbiParameters(
        nonIndexed,
        nonIndexed.map((i) => c.args[i.name ?? '']) as never,
      );
      const ours = decodeLog(log(topics, data));
      const viem = decodeEventLog({ abi, topics: topics as [Hex], data, strict: true });
      expect(ours, c.eventName).not.toBeNull();
      expect(viem.eventName).toBe(c.eventName);
      // Compare every numeric/address field viem produced with ours, by meaning.
      const flat = JSON.stringify(ours, (_k, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : v,
      );
      for (const [name, value] of Object.entries(viem.args as Record<string, unknown>)) {
        if (c.ignore?.includes(name)) continue;
        const expected = Array.isArray(value)
          ? value.map(String)
          : typeof value === 'string'
            ? value.toLowerCase()
            : String(value);
        for (const e of [expected].flat())
          expect(flat, `${c.eventName}.${name}`).toContain(String(e));
      }
    }
  });

  it('returns the signed tick and liquidity delta of v3 liquidity events', () => {
    const burn = indexedEventsAbi[14];
    if (burn?.type !== 'event') throw new Error('bad index');
    const topics = encodeEventTopics({
      abi: [burn],
      args: { owner: B, tickLower: -120, tickUpper: 120 },
    } as never) as Hex[];
    const data = encodeAbiParameters(
      [{ type: 'uint128' }, { type: 'uint256' }, { type: 'uint256' }],
      [555n, 1n, 2n],
    );
    expect(decodeLog(log(topics, data))).toEqual({
      kind: 'v3_liquidity',
      address: TOKEN,
      tickLower: -120,
      tickUpper: 120,
      delta: -555n,
    });
  });

  it('ignores malformed and unknown logs instead of throwing', () => {
    const bad: RawLog[] = [
      log([], '0x'),
      log(['0xdeadbeef'], '0x'),
      log([TOPIC.transfer, pad(A)], word(1n)), // too few topics
      log([TOPIC.transfer, pad(A), pad(B)], '0x1234'), // short data
      log([TOPIC.transfer, `0xff${pad(A).slice(4)}`, pad(B)], word(1n)), // dirty address topic
      log([TOPIC.transfer, pad(A), pad(B), pad(1n)], word(1n)), // 721 with data
      log([TOPIC.transferBatch, pad(A), pad(A), pad(B)], '0x00'), // odd length
      log([TOPIC.transferBatch, pad(A), pad(A), pad(B)], word(64n)), // truncated arrays
      log([TOPIC.sync], word(1n)),
      log([TOPIC.batchMetadataUpdate], `${word(9n)}${word(1n).slice(2)}` as Hex), // from > to
    ];
    for (const l of bad) expect(decodeLog(l)).toBeNull();
  });

  it('rejects a TransferBatch whose id and value arrays differ in length', () => {
    const data = encodeAbiParameters(
      [{ type: 'uint256[]' }, { type: 'uint256[]' }],
      [[1n, 2n], [1n]],
    );
    expect(decodeLog(log([TOPIC.transferBatch, pad(A), pad(A), pad(B)], data))).toBeNull();
  });
});

function pad(v: string | bigint): string {
  const hex = typeof v === 'bigint' ? v.toString(16) : v.slice(2);
  return `0x${hex.padStart(64, '0')}`;
}
