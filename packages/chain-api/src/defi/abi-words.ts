import type { CallResult } from '../rpc/read-calls.js';

/**
 * Strict readers of ABI-encoded return data from contracts nobody vetted: each returns null
 * unless the answer has exactly the expected shape, so garbage never becomes a number.
 */

const WORD = 64;
const INT24_MIN = -(1n << 23n);
const INT24_MAX = (1n << 23n) - 1n;

/**
 * The 32-byte words of a return value when it has at least `min` of them (whole words only).
 *
 * @example
 * words(`0x${'00'.repeat(31)}01`, 1) // [1n]
 */
export function words(data: CallResult, min: number): bigint[] | null {
  if (typeof data !== 'string' || !data.startsWith('0x')) return null;
  const body = data.slice(2);
  if (body.length % WORD !== 0 || body.length / WORD < min || !/^[0-9a-fA-F]*$/.test(body)) {
    return null;
  }
  const out: bigint[] = [];
  for (let i = 0; i < body.length; i += WORD) out.push(BigInt(`0x${body.slice(i, i + WORD)}`));
  return out;
}

/** A single unsigned word below 2^bits, or null. */
export function uintResult(data: CallResult, bits = 256): bigint | null {
  const w = words(data, 1);
  return w && w.length === 1 && w[0]! < 1n << BigInt(bits) ? w[0]! : null;
}

/** A word holding a non-zero address (upper 12 bytes zero), lower-case, or null. */
export function addressWord(word: bigint | undefined): `0x${string}` | null {
  if (word === undefined || word === 0n || word >= 1n << 160n) return null;
  return `0x${word.toString(16).padStart(40, '0')}`;
}

/** A single non-zero address return value, or null. */
export function addressResult(data: CallResult): `0x${string}` | null {
  const w = words(data, 1);
  return w && w.length === 1 ? addressWord(w[0]) : null;
}

/** A word holding an ABI-encoded int24 (sign-extended to 256 bits), or null. */
export function int24Word(word: bigint | undefined): number | null {
  if (word === undefined) return null;
  const signed = word >= 1n << 255n ? word - (1n << 256n) : word;
  return signed >= INT24_MIN && signed <= INT24_MAX ? Number(signed) : null;
}
