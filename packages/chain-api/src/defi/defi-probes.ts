import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { CallResult, ContractCall } from '../rpc/read-calls.js';
import { addressResult, addressWord, int24Word, uintResult, words } from './abi-words.js';
import { MAX_TICK, MIN_TICK, type V3PositionFees } from './uniswap-v3-math.js';

/** What a contract a wallet holds turned out to be, as far as DeFi positions go. */
export type DefiContract =
  /** A Uniswap-v2-compatible pair (any fork): its ERC20 is an LP share of the reserves. */
  | { kind: 'uniswap_v2'; token0: string; token1: string }
  /** An ERC-4626 vault: its shares redeem for `asset`. */
  | { kind: 'erc4626'; asset: string }
  /** A Uniswap-v3-compatible NonfungiblePositionManager: its NFTs are liquidity positions. */
  | { kind: 'uniswap_v3_npm'; factory: string };

/** `contract_probes.probe` of these answers (result null: not a position contract). */
export const DEFI_PROBE = 'defi';

export const defiAbi = parseAbi([
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function asset() view returns (address)',
  'function totalAssets() view returns (uint256)',
  'function convertToAssets(uint256 shares) view returns (uint256)',
  'function previewRedeem(uint256 shares) view returns (uint256)',
  'function factory() view returns (address)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function positions(uint256 tokenId) view returns (uint96, address, address, address, uint24, int24, int24, uint128, uint256, uint256, uint128, uint128)',
  'function getPool(address, address, uint24) view returns (address)',
  'function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)',
  'function feeGrowthGlobal0X128() view returns (uint256)',
  'function feeGrowthGlobal1X128() view returns (uint256)',
  'function ticks(int24 tick) view returns (uint128, int128, uint256, uint256, int56, uint160, uint32, bool)',
]);

/** Encodes one call of {@link defiAbi}. */
export function defiCall(
  to: string,
  functionName: string,
  args: readonly unknown[] = [],
): ContractCall {
  return {
    to,
    data: encodeFunctionData({ abi: defiAbi, functionName, args } as never) as Hex,
  };
}

/** The stored form of an answer (`contract_probes.result`). */
export function encodeDefiContract(found: DefiContract | null): string | null {
  if (!found) return null;
  if (found.kind === 'uniswap_v2') return `uniswap_v2:${found.token0},${found.token1}`;
  if (found.kind === 'erc4626') return `erc4626:${found.asset}`;
  return `uniswap_v3_npm:${found.factory}`;
}

/**
 * Reads a stored answer back; null for "not a position contract" and for anything unreadable.
 *
 * @example
 * decodeDefiContract('erc4626:0xabc…') // { kind: 'erc4626', asset: '0xabc…' }
 */
export function decodeDefiContract(result: string | null): DefiContract | null {
  if (!result) return null;
  const [kind, rest = ''] = result.split(':');
  const isAddress = (a: string | undefined): a is string => !!a && /^0x[0-9a-f]{40}$/.test(a);
  if (kind === 'uniswap_v2') {
    const [token0, token1] = rest.split(',');
    return isAddress(token0) && isAddress(token1) ? { kind, token0, token1 } : null;
  }
  if (kind === 'erc4626') return isAddress(rest) ? { kind, asset: rest } : null;
  if (kind === 'uniswap_v3_npm') return isAddress(rest) ? { kind, factory: rest } : null;
  return null;
}

/** Probe calls of an ERC20 a wallet holds: is it a v2 pair, a 4626 vault, or neither? */
export function tokenProbeCalls(token: string): ContractCall[] {
  return ['token0', 'token1', 'getReserves', 'totalSupply', 'asset', 'totalAssets'].map((fn) =>
    defiCall(token, fn),
  );
}
export const TOKEN_PROBE_CALLS = 6;

/**
 * Classifies an ERC20 from the answers to {@link tokenProbeCalls}: a pair answers two distinct
 * token addresses, reserves and a supply; a vault an asset (not itself) and its total assets.
 * Undefined: the node could not run a call that decides, so nothing is concluded (not cached).
 */
export function classifyToken(
  token: string,
  answers: readonly CallResult[],
): DefiContract | null | undefined {
  const [t0, t1, reserves, supply, asset, total] = answers;
  const token0 = addressResult(t0);
  const token1 = addressResult(t1);
  if (token0 && token1 && token0 !== token1 && words(reserves, 2) && uintResult(supply) !== null) {
    return { kind: 'uniswap_v2', token0, token1 };
  }
  const underlying = addressResult(asset);
  if (underlying && underlying !== token && uintResult(total) !== null) {
    return { kind: 'erc4626', asset: underlying };
  }
  return answers.some((a) => a === undefined) ? undefined : null;
}

/** Probe calls of an ERC721 a wallet holds (one of its token ids): a v3 position manager? */
export function nftProbeCalls(contract: string, tokenId: bigint): ContractCall[] {
  return [
    defiCall(contract, 'factory'),
    defiCall(contract, 'positions', [tokenId]),
    defiCall(contract, 'ownerOf', [tokenId]),
  ];
}
export const NFT_PROBE_CALLS = 3;

/** A NonfungiblePositionManager position, decoded strictly from `positions(tokenId)`. */
export interface NpmPosition extends V3PositionFees {
  token0: string;
  token1: string;
  fee: number;
}

/**
 * Decodes `positions(tokenId)` of a Uniswap-v3-style position manager (12 words, every field
 * in its type's range, token0 < token1, a valid tick range), or null.
 */
export function decodeNpmPosition(data: CallResult): NpmPosition | null {
  const w = words(data, 12);
  if (w?.length !== 12) return null;
  const token0 = addressWord(w[2]);
  const token1 = addressWord(w[3]);
  const tickLower = int24Word(w[5]);
  const tickUpper = int24Word(w[6]);
  const u128 = 1n << 128n;
  if (!token0 || !token1 || token0 >= token1 || tickLower === null || tickUpper === null) {
    return null;
  }
  if (tickLower >= tickUpper || tickLower < MIN_TICK || tickUpper > MAX_TICK) return null;
  if (w[4]! >= 1n << 24n || w[0]! >= 1n << 96n || w[1]! >= 1n << 160n) return null;
  if (w[7]! >= u128 || w[10]! >= u128 || w[11]! >= u128) return null;
  return {
    token0,
    token1,
    fee: Number(w[4]),
    tickLower,
    tickUpper,
    liquidity: w[7]!,
    feeGrowthInside0LastX128: w[8]!,
    feeGrowthInside1LastX128: w[9]!,
    tokensOwed0: w[10]!,
    tokensOwed1: w[11]!,
  };
}

/**
 * Classifies an ERC721 from the answers to {@link nftProbeCalls}: a position manager names its
 * factory and describes the held token as a position. A contract without `factory()`, or one
 * whose existing token (ownerOf answers) is no position, is not one; anything else is unknown.
 */
export function classifyNft(answers: readonly CallResult[]): DefiContract | null | undefined {
  const [factoryAnswer, position, owner] = answers;
  const factory = addressResult(factoryAnswer);
  if (factory && decodeNpmPosition(position)) return { kind: 'uniswap_v3_npm', factory };
  if (factoryAnswer === null) return null;
  if (factoryAnswer !== undefined && !factory) return null;
  return addressResult(owner) && position !== undefined ? null : undefined;
}
