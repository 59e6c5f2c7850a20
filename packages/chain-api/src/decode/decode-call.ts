import {
  type AbiFunction,
  type AbiParameter,
  decodeAbiParameters,
  parseAbiItem,
  toFunctionSelector,
} from 'viem';
import { formatAbiItem, formatAbiParams } from 'viem/utils';
import { standardSignatures } from './function-signatures.js';

/** A decoded call as the activity feed shows it. */
export interface DecodedCall {
  /** Canonical signature, e.g. `transfer(address,uint256)`. */
  signature: string;
  name: string;
  inputs: { name: string; type: string; value: string }[];
}

/** Selector -> candidate functions (several when selectors collide). */
export type SelectorRegistry = ReadonlyMap<string, readonly AbiFunction[]>;

/**
 * Builds a registry from human-readable signatures (`function name(type name, ...)`), optionally on
 * top of another. Invalid signatures are skipped and reported in `rejected`.
 *
 * @example
 * const reg = createSelectorRegistry(['function vote(uint256 id, bool yes)']);
 */
export function createSelectorRegistry(
  signatures: readonly string[] = standardSignatures,
  base?: SelectorRegistry,
): SelectorRegistry & { rejected: string[] } {
  const map = new Map<string, AbiFunction[]>();
  if (base) for (const [k, v] of base) map.set(k, [...v]);
  const rejected: string[] = [];
  for (const sig of signatures) {
    let parsed: ReturnType<typeof parseAbiItem>;
    try {
      parsed = parseAbiItem(sig);
    } catch {
      rejected.push(sig);
      continue;
    }
    if (parsed.type !== 'function') {
      rejected.push(sig);
      continue;
    }
    const item: AbiFunction = parsed;
    const selector = toFunctionSelector(item);
    const list = map.get(selector) ?? [];
    const canonical = canonicalSignature(item);
    if (!list.some((f) => canonicalSignature(f) === canonical)) list.push(item);
    map.set(selector, list);
  }
  return Object.assign(map, { rejected });
}

let defaultRegistry: SelectorRegistry | undefined;

/** The bundled registry (standard interfaces, DEX routers, common contracts). */
export function standardRegistry(): SelectorRegistry {
  defaultRegistry ??= createSelectorRegistry(standardSignatures);
  return defaultRegistry;
}

/**
 * Decodes calldata against the registry. Returns null for empty input, an unknown selector or
 * calldata that matches no candidate's layout.
 *
 * @example
 * decodeCall('0xa9059cbb000...') // { signature: 'transfer(address,uint256)', name: 'transfer', inputs: [...] }
 */
export function decodeCall(
  input: string,
  registry: SelectorRegistry = standardRegistry(),
): DecodedCall | null {
  if (input.length < 10) return null;
  const candidates = registry.get(input.slice(0, 10).toLowerCase());
  if (!candidates) return null;
  for (const fn of candidates) {
    try {
      // The registry matched the selector: decode the arguments only (decodeFunctionData would
      // hash every candidate's signature again to find it).
      const values = decodeAbiParameters(fn.inputs, `0x${input.slice(10)}`) as readonly unknown[];
      const { signature, types } = described(fn);
      return {
        signature,
        name: fn.name,
        inputs: fn.inputs.map((p, i) => ({
          name: p.name ?? `arg${i}`,
          type: types[i] as string,
          value: stringifyValue(values[i]),
        })),
      };
    } catch {
      // Try the next candidate with this selector.
    }
  }
  return null;
}

const descriptions = new WeakMap<AbiFunction, { signature: string; types: string[] }>();

/** A registry function's signature and parameter types, formatted once. */
function described(fn: AbiFunction): { signature: string; types: string[] } {
  let d = descriptions.get(fn);
  if (!d) {
    d = { signature: canonicalSignature(fn), types: fn.inputs.map(typeString) };
    descriptions.set(fn, d);
  }
  return d;
}

function canonicalSignature(fn: AbiFunction): string {
  return formatAbiItem(fn);
}

function typeString(p: AbiParameter): string {
  return formatAbiParams([p]);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Scalars as plain strings; arrays and tuples as JSON with bigints as decimal strings. */
function stringifyValue(v: unknown): string {
  if (typeof v === 'string') return ADDRESS.test(v) ? v.toLowerCase() : v;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'bigint'
      ? x.toString()
      : typeof x === 'string' && ADDRESS.test(x)
        ? x.toLowerCase()
        : x,
  );
}
