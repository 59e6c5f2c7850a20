import { encodeAbiParameters, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { isRevert } from '../rpc/read-calls.js';
import { RpcResponseError } from '../rpc/rpc-errors.js';
import {
  classifyNft,
  classifyToken,
  decodeDefiContract,
  decodeNpmPosition,
  encodeDefiContract,
} from './defi-probes.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const SELF = '0x00000000000000000000000000000000000000cc';
const address = (a: string): Hex => encodeAbiParameters([{ type: 'address' }], [a as Hex]);
const uint = (v: bigint): Hex => encodeAbiParameters([{ type: 'uint256' }], [v]);
const reserves = encodeAbiParameters(
  [{ type: 'uint112' }, { type: 'uint112' }, { type: 'uint32' }],
  [5n, 7n, 1],
);

function position(overrides: Partial<Record<string, unknown>> = {}): Hex {
  const v = {
    nonce: 0n,
    operator: '0x0000000000000000000000000000000000000000',
    token0: A,
    token1: B,
    fee: 3000,
    tickLower: -600,
    tickUpper: 600,
    liquidity: 10n ** 18n,
    fg0: 1n,
    fg1: 2n,
    owed0: 3n,
    owed1: 4n,
    ...overrides,
  };
  return encodeAbiParameters(
    [
      { type: 'uint96' },
      { type: 'address' },
      { type: 'address' },
      { type: 'address' },
      { type: 'uint24' },
      { type: 'int24' },
      { type: 'int24' },
      { type: 'uint128' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'uint128' },
      { type: 'uint128' },
    ],
    [
      v.nonce,
      v.operator,
      v.token0,
      v.token1,
      v.fee,
      v.tickLower,
      v.tickUpper,
      v.liquidity,
      v.fg0,
      v.fg1,
      v.owed0,
      v.owed1,
    ] as never,
  );
}

describe('classifyToken', () => {
  it('a pair answers two distinct tokens, reserves and a supply', () => {
    expect(classifyToken(SELF, [address(A), address(B), reserves, uint(9n), null, null])).toEqual({
      kind: 'uniswap_v2',
      token0: A,
      token1: B,
    });
    // Same token twice, or no reserves: not a pair.
    expect(
      classifyToken(SELF, [address(A), address(A), reserves, uint(9n), null, null]),
    ).toBeNull();
    expect(classifyToken(SELF, [address(A), address(B), null, uint(9n), null, null])).toBeNull();
  });

  it('a vault answers an asset other than itself and its total assets', () => {
    expect(classifyToken(SELF, [null, null, null, uint(1n), address(A), uint(5n)])).toEqual({
      kind: 'erc4626',
      asset: A,
    });
    expect(classifyToken(SELF, [null, null, null, uint(1n), address(SELF), uint(5n)])).toBeNull();
    expect(classifyToken(SELF, [null, null, null, uint(1n), address(A), null])).toBeNull();
  });

  it('garbage is no answer; a call the node could not run leaves it undecided', () => {
    const garbage = '0xdeadbeef00' as Hex;
    expect(classifyToken(SELF, Array(6).fill(garbage))).toBeNull();
    expect(classifyToken(SELF, [null, null, null, uint(1n), undefined, null])).toBeUndefined();
  });
});

describe('positions() and classifyNft', () => {
  it('decodes a position strictly', () => {
    expect(decodeNpmPosition(position())).toMatchObject({
      token0: A,
      token1: B,
      fee: 3000,
      tickLower: -600,
      tickUpper: 600,
      liquidity: 10n ** 18n,
      tokensOwed1: 4n,
    });
    expect(decodeNpmPosition(position({ token0: B, token1: A }))).toBeNull();
    expect(decodeNpmPosition(position({ tickLower: 600, tickUpper: -600 }))).toBeNull();
    expect(decodeNpmPosition(position({ tickLower: -887273 }))).toBeNull();
    expect(decodeNpmPosition(`${position()}00` as Hex)).toBeNull();
    expect(decodeNpmPosition(uint(1n))).toBeNull();
  });

  it('a manager names a factory and describes its token; others are not; unknown stays unknown', () => {
    expect(classifyNft([address(A), position(), address(SELF)])).toEqual({
      kind: 'uniswap_v3_npm',
      factory: A,
    });
    expect(classifyNft([null, position(), address(SELF)])).toBeNull();
    // An existing token (ownerOf answers) that is no position: not a manager.
    expect(classifyNft([address(A), null, address(SELF)])).toBeNull();
    // The token may be gone: nothing can be concluded.
    expect(classifyNft([address(A), null, null])).toBeUndefined();
    expect(classifyNft([undefined, undefined, undefined])).toBeUndefined();
  });
});

describe('stored answers', () => {
  it('round-trip, and anything unreadable is "not a position"', () => {
    for (const found of [
      { kind: 'uniswap_v2', token0: A, token1: B },
      { kind: 'erc4626', asset: A },
      { kind: 'uniswap_v3_npm', factory: B },
    ] as const) {
      expect(decodeDefiContract(encodeDefiContract(found))).toEqual(found);
    }
    expect(encodeDefiContract(null)).toBeNull();
    expect(decodeDefiContract('erc4626:nonsense')).toBeNull();
    expect(decodeDefiContract('unknown:0x')).toBeNull();
  });

  it('tells a revert from a node failure', () => {
    expect(isRevert(new RpcResponseError('eth_call', 3, 'execution reverted'))).toBe(true);
    expect(isRevert(new RpcResponseError('eth_call', -32000, 'out of gas'))).toBe(true);
    expect(isRevert(new RpcResponseError('eth_call', -32000, 'missing trie node abc'))).toBe(false);
  });
});
