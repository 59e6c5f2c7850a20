import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ChainConfig } from './chain-config.js';
import { type ChainOverride, parseChainId, parseChainsFile, parseRpcUrl } from './chains-file.js';
import { chainConfigError } from './errors.js';
import { getKnownChain } from './known-chains.js';

const RPC_ENV_RE = /^RPC_URL_(.*)$/;

/** Defaults for a chain id the registry does not know (any EVM node can be indexed). */
function unknownChain(chainId: number): ChainConfig {
  return {
    chainId,
    name: `chain_${chainId}`,
    // Configured explicitly by the operator, so served when `chain_ids` is omitted.
    tags: ['default'],
    nativeSymbol: 'ETH',
    nativeName: 'Ether',
    nativeDecimals: 18,
    startBlock: 0n,
    finalityDepth: 64,
    stablecoins: [],
    uniswapV2Factories: [],
    uniswapV3Factories: [],
  };
}

/** A mutable copy of the built-in entry (or generic defaults) with `override` applied. */
export function resolveChainConfig(chainId: number, override?: Partial<ChainConfig>): ChainConfig {
  const known = getKnownChain(chainId);
  const base: ChainConfig = known
    ? {
        ...known,
        tags: [...known.tags],
        stablecoins: [...known.stablecoins],
        uniswapV2Factories: [...known.uniswapV2Factories],
        uniswapV3Factories: [...known.uniswapV3Factories],
      }
    : unknownChain(chainId);
  const merged: ChainConfig = { ...base };
  for (const [key, value] of Object.entries(override ?? {})) {
    if (key !== 'chainId' && value !== undefined)
      (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}

async function readChainsFile(path: string): Promise<ChainOverride[]> {
  const source = `CHAINS_FILE=${path}`;
  let text: string;
  try {
    text = await readFile(resolve(path), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    throw chainConfigError(source, `cannot read file (${code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw chainConfigError(source, `invalid JSON: ${(err as Error).message}`);
  }
  return parseChainsFile(json, source);
}

/**
 * The chains to index: every `RPC_URL_<chainId>` variable (and every CHAINS_FILE entry with an
 * `rpc_url`), built from the registry and overridden by CHAINS_FILE. Sorted by chain id.
 * Throws a ConfigError naming the variable or JSON path of any bad input.
 *
 * @example
 * const chains = await loadChainConfigs({ RPC_URL_1: 'https://eth.example/v2/KEY' });
 * chains[0]?.name; // 'ethereum'
 */
export async function loadChainConfigs(
  env: Readonly<Record<string, string | undefined>>,
): Promise<ChainConfig[]> {
  const overrides = new Map<number, ChainOverride>();
  if (env.CHAINS_FILE?.trim()) {
    for (const o of await readChainsFile(env.CHAINS_FILE.trim())) overrides.set(o.chainId, o);
  }

  const rpcUrls = new Map<number, string>();
  for (const [key, value] of Object.entries(env)) {
    const match = RPC_ENV_RE.exec(key);
    if (!match || value === undefined || value.trim() === '') continue;
    const chainId = parseChainId(match[1], `${key} (expected RPC_URL_<numeric chain id>)`);
    rpcUrls.set(chainId, parseRpcUrl(value, key));
  }
  for (const [chainId, o] of overrides) {
    if (o.rpcUrl && !rpcUrls.has(chainId)) rpcUrls.set(chainId, o.rpcUrl);
  }

  const chains = [...rpcUrls.keys()]
    .sort((a, b) => a - b)
    .map((chainId) => ({
      ...resolveChainConfig(chainId, overrides.get(chainId)),
      rpcUrl: rpcUrls.get(chainId),
    }));

  const names = new Map<string, number>();
  for (const chain of chains) {
    const other = names.get(chain.name);
    if (other !== undefined) {
      throw chainConfigError(
        'CHAINS_FILE',
        `chains ${other} and ${chain.chainId} are both named "${chain.name}"; names must be unique`,
      );
    }
    names.set(chain.name, chain.chainId);
  }
  return chains;
}

/** An RPC URL safe to log: scheme, host and port only (paths and queries often carry API keys). */
export function redactRpcUrl(rpcUrl: string): string {
  try {
    const url = new URL(rpcUrl);
    const hidden = url.pathname.length > 1 || url.search || url.username ? '/***' : '';
    return `${url.protocol}//${url.host}${hidden}`;
  } catch {
    return '<invalid url>';
  }
}
