import type { Address, ChainConfig, TokenInfo } from './chain-config.js';
import { chainConfigError } from './errors.js';

/** One validated CHAINS_FILE entry: a chain id plus the fields it overrides. */
export type ChainOverride = Partial<Omit<ChainConfig, 'chainId'>> & { chainId: number };

type FieldKind =
  | 'name'
  | 'tags'
  | 'symbol'
  | 'text'
  | 'decimals'
  | 'block'
  | 'depth'
  | 'every'
  | 'address'
  | 'addresses'
  | 'url'
  | 'rpc'
  | 'tokens'
  | 'onReplaced'
  | 'mode';

// snake_case (documented) and camelCase spellings both map to ChainConfig keys.
const FIELDS: Record<string, [keyof ChainOverride, FieldKind]> = {
  name: ['name', 'name'],
  tags: ['tags', 'tags'],
  native_symbol: ['nativeSymbol', 'symbol'],
  native_name: ['nativeName', 'text'],
  native_decimals: ['nativeDecimals', 'decimals'],
  rpc_url: ['rpcUrl', 'rpc'],
  start_block: ['startBlock', 'block'],
  finality_depth: ['finalityDepth', 'depth'],
  stablecoins: ['stablecoins', 'addresses'],
  wrapped_native: ['wrappedNative', 'address'],
  multicall3: ['multicall3', 'address'],
  uniswap_v2_factories: ['uniswapV2Factories', 'addresses'],
  uniswap_v3_factories: ['uniswapV3Factories', 'addresses'],
  explorer_url: ['explorerUrl', 'url'],
  logo_url: ['logoUrl', 'url'],
  tokens: ['tokens', 'tokens'],
  on_replaced: ['onReplaced', 'onReplaced'],
  reconcile_every_blocks: ['reconcileEveryBlocks', 'every'],
  mode: ['mode', 'mode'],
};
const CAMEL = new Map(Object.entries(FIELDS).map(([snake, [camel]]) => [camel as string, snake]));

const NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** Parses an address, lower-cased; throws naming `where` otherwise. */
export function parseAddress(value: unknown, where: string): Address {
  if (typeof value !== 'string' || !ADDRESS_RE.test(value)) {
    throw chainConfigError(
      where,
      `expected a 0x-prefixed 20-byte hex address, got ${describe(value)}`,
    );
  }
  return value.toLowerCase() as Address;
}

/** Validates an RPC URL (http, https, ws, wss). The error never echoes the URL (it may hold a key). */
export function parseRpcUrl(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw chainConfigError(where, 'expected a non-empty http(s):// or ws(s):// URL');
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw chainConfigError(where, 'not a valid URL (expected http(s):// or ws(s)://)');
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw chainConfigError(
      where,
      `unsupported protocol "${url.protocol}" (expected http:, https:, ws: or wss:)`,
    );
  }
  return value.trim();
}

/** Parses a positive integer chain id (number or decimal string). */
export function parseChainId(value: unknown, where: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
    throw chainConfigError(where, `expected a positive integer chain id, got ${describe(value)}`);
  }
  return n;
}

function intInRange(value: unknown, min: number, max: number, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw chainConfigError(
      where,
      `expected an integer from ${min} to ${max}, got ${describe(value)}`,
    );
  }
  return value;
}

function parseField(kind: FieldKind, value: unknown, where: string): unknown {
  switch (kind) {
    case 'name':
      if (typeof value !== 'string' || !NAME_RE.test(value)) {
        throw chainConfigError(
          where,
          `expected a lower-case name of letters, digits and "_" (like "base" or "hyper_evm"), got ${describe(value)}`,
        );
      }
      return value;
    case 'tags':
      if (!Array.isArray(value)) {
        throw chainConfigError(where, `expected an array of tags, got ${describe(value)}`);
      }
      return value.map((tag, i) => {
        if (typeof tag !== 'string' || !NAME_RE.test(tag)) {
          throw chainConfigError(
            `${where}[${i}]`,
            `expected a lower-case tag of letters, digits and "_", got ${describe(tag)}`,
          );
        }
        return tag;
      });
    case 'symbol':
    case 'text':
      if (typeof value !== 'string' || value.trim() === '' || value.length > 64) {
        throw chainConfigError(
          where,
          `expected a non-empty string of at most 64 characters, got ${describe(value)}`,
        );
      }
      return value;
    case 'decimals':
      return intInRange(value, 0, 36, where);
    case 'depth':
      return intInRange(value, 0, 100_000, where);
    case 'every':
      return intInRange(value, 1, 1_000_000, where);
    case 'block':
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
        return BigInt(value);
      if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
      throw chainConfigError(
        where,
        `expected a non-negative integer block number (number or decimal string), got ${describe(value)}`,
      );
    case 'address':
      return parseAddress(value, where);
    case 'addresses': {
      if (!Array.isArray(value)) {
        throw chainConfigError(where, `expected an array of addresses, got ${describe(value)}`);
      }
      const list = value.map((a, i) => parseAddress(a, `${where}[${i}]`));
      return [...new Set(list)];
    }
    case 'url': {
      if (typeof value !== 'string') {
        throw chainConfigError(where, `expected an http(s) URL, got ${describe(value)}`);
      }
      try {
        const url = new URL(value);
        if (url.protocol === 'http:' || url.protocol === 'https:') return value;
      } catch {
        // fall through
      }
      throw chainConfigError(where, `expected an http(s) URL, got ${describe(value)}`);
    }
    case 'rpc':
      return parseRpcUrl(value, where);
    case 'tokens':
      return parseTokens(value, where);
    case 'onReplaced':
      if (value !== 'stop' && value !== 'reindex') {
        throw chainConfigError(where, `expected "stop" or "reindex", got ${describe(value)}`);
      }
      return value;
    case 'mode':
      if (value !== 'full' && value !== 'wallets') {
        throw chainConfigError(where, `expected "full" or "wallets", got ${describe(value)}`);
      }
      return value;
  }
}

function parseTokens(value: unknown, where: string): TokenInfo[] {
  if (!Array.isArray(value)) {
    throw chainConfigError(
      where,
      `expected an array of {address, logo?, url?}, got ${describe(value)}`,
    );
  }
  const seen = new Set<string>();
  return value.map((entry, i) => {
    const at = `${where}[${i}]`;
    if (!isRecord(entry)) throw chainConfigError(at, `expected an object, got ${describe(entry)}`);
    const extra = Object.keys(entry).find((k) => !['address', 'logo', 'url'].includes(k));
    if (extra)
      throw chainConfigError(`${at}.${extra}`, 'unknown field; allowed: address, logo, url');
    const token: TokenInfo = { address: parseAddress(entry.address, `${at}.address`) };
    if (seen.has(token.address))
      throw chainConfigError(`${at}.address`, `duplicate token ${token.address}`);
    seen.add(token.address);
    if (entry.logo !== undefined && entry.logo !== null)
      token.logo = parseField('url', entry.logo, `${at}.logo`) as string;
    if (entry.url !== undefined && entry.url !== null)
      token.url = parseField('url', entry.url, `${at}.url`) as string;
    return token;
  });
}

function parseEntry(entry: unknown, where: string): ChainOverride {
  if (!isRecord(entry)) {
    throw chainConfigError(
      where,
      `expected an object with at least "chain_id", got ${describe(entry)}`,
    );
  }
  const idKey = 'chain_id' in entry ? 'chain_id' : 'chainId' in entry ? 'chainId' : undefined;
  if (!idKey) throw chainConfigError(where, 'missing "chain_id"');
  const out: Record<string, unknown> = { chainId: parseChainId(entry[idKey], `${where}.${idKey}`) };
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'chain_id' || key === 'chainId') continue;
    const snake = FIELDS[key] ? key : CAMEL.get(key);
    const field = snake ? FIELDS[snake] : undefined;
    if (!field) {
      throw chainConfigError(
        `${where}.${key}`,
        `unknown field; allowed: chain_id, ${Object.keys(FIELDS).join(', ')}`,
      );
    }
    if (value === null || value === undefined) continue; // explicit null = keep the built-in value
    out[field[0]] = parseField(field[1], value, `${where}.${key}`);
  }
  return out as ChainOverride;
}

/**
 * Validates the parsed JSON of a CHAINS_FILE: `{"chains": [...]}` or a bare array of entries,
 * each `{chain_id, ...overrides}` (snake_case, camelCase also accepted).
 *
 * @example
 * parseChainsFile({ chains: [{ chain_id: 8453, start_block: 20000000 }] }, 'chains.json');
 */
export function parseChainsFile(json: unknown, source = 'CHAINS_FILE'): ChainOverride[] {
  let entries: unknown;
  let prefix = source;
  if (Array.isArray(json)) {
    entries = json;
  } else if (isRecord(json)) {
    const extra = Object.keys(json).filter((k) => k !== 'chains');
    if (extra.length > 0) {
      throw chainConfigError(
        `${source}.${extra[0]}`,
        'unknown top-level field; expected only "chains"',
      );
    }
    entries = json.chains;
    prefix = `${source}.chains`;
    if (!Array.isArray(entries)) {
      throw chainConfigError(
        prefix,
        `expected an array of chain entries, got ${describe(entries)}`,
      );
    }
  } else {
    throw chainConfigError(source, `expected {"chains": [...]} or an array, got ${describe(json)}`);
  }
  const seen = new Set<number>();
  return (entries as unknown[]).map((entry, i) => {
    const parsed = parseEntry(entry, `${prefix}[${i}]`);
    if (seen.has(parsed.chainId)) {
      throw chainConfigError(`${prefix}[${i}].chain_id`, `duplicate chain id ${parsed.chainId}`);
    }
    seen.add(parsed.chainId);
    return parsed;
  });
}
