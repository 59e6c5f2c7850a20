import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ChainConfig } from '../chains/index.js';

/** `token_metadata` of a balance when `metadata=logo,url` is asked. */
export interface TokenLinks {
  logo?: string;
  url?: string;
}

/** Looks up logos and links of tokens; `token` is a lower-case address or 'native'. */
export interface TokenMetadataLookup {
  get(chainId: number, token: string): TokenLinks | undefined;
  /** Number of (chain, token) entries with a logo or URL, for logs. */
  readonly size: number;
}

interface TokenListToken {
  chainId: number;
  address: string;
  logoURI?: string;
  extensions?: { bridgeInfo?: Record<string, { tokenAddress?: string }> };
}

const require = createRequire(import.meta.url);
let bundled: TokenListToken[] | undefined;

/** The Uniswap default token list shipped with the package (parsed once). */
function bundledTokens(): TokenListToken[] {
  if (!bundled) {
    const file = require.resolve('@uniswap/default-token-list');
    const list = JSON.parse(readFileSync(file, 'utf8')) as { tokens?: TokenListToken[] };
    bundled = Array.isArray(list.tokens) ? list.tokens : [];
  }
  return bundled;
}

/** http(s) URLs as they are; ipfs:// through a public gateway; anything else is dropped. */
export function normalizeLogoUri(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined;
  if (uri.startsWith('ipfs://')) return `https://ipfs.io/ipfs/${uri.slice('ipfs://'.length)}`;
  try {
    const u = new URL(uri);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

const ADDRESS_RE = /^0x[0-9a-f]{40}$/;

/**
 * Builds the logo/url lookup for the given chains: logos from the bundled Uniswap default token
 * list (including the addresses its `bridgeInfo` maps a token to on other chains), overridden by
 * the chain's own `tokens` entries (CHAINS_FILE); `url` is the entry's URL, else the token's page
 * on the chain's block explorer. The native asset gets the chain's logo and explorer.
 *
 * @example
 * const lookup = createTokenMetadataLookup(chains);
 * lookup.get(1, '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48') // {logo: 'https://...', url: 'https://etherscan.io/token/0xa0b8...'}
 */
export function createTokenMetadataLookup(chains: readonly ChainConfig[]): TokenMetadataLookup {
  const byChain = new Map<number, ChainConfig>(chains.map((c) => [c.chainId, c]));
  const logos = new Map<string, string>();
  const urls = new Map<string, string>();
  const key = (chainId: number, token: string) => `${chainId}:${token}`;
  const direct = new Set<string>();
  for (const t of bundledTokens()) {
    const logo = normalizeLogoUri(t.logoURI);
    if (!logo || typeof t.address !== 'string') continue;
    const k = key(t.chainId, t.address.toLowerCase());
    logos.set(k, logo);
    direct.add(k);
  }
  // Bridged copies share their origin's logo unless the list has their own entry.
  for (const t of bundledTokens()) {
    const logo = normalizeLogoUri(t.logoURI);
    if (!logo) continue;
    for (const [chainId, info] of Object.entries(t.extensions?.bridgeInfo ?? {})) {
      const address = info.tokenAddress?.toLowerCase();
      if (!address || !ADDRESS_RE.test(address)) continue;
      const k = key(Number(chainId), address);
      if (!direct.has(k)) logos.set(k, logo);
    }
  }
  for (const chain of chains) {
    for (const e of chain.tokens ?? []) {
      const k = key(chain.chainId, e.address.toLowerCase());
      const logo = normalizeLogoUri(e.logo);
      if (logo) logos.set(k, logo);
      if (e.url) urls.set(k, e.url);
    }
  }
  return {
    get(chainId, token) {
      const chain = byChain.get(chainId);
      const explorer = chain?.explorerUrl?.replace(/\/+$/, '');
      if (token === 'native') {
        if (!chain) return undefined;
        const out: TokenLinks = {};
        const logo = chain.nativeLogoUrl ?? chain.logoUrl;
        if (logo) out.logo = logo;
        if (explorer) out.url = explorer;
        return out.logo || out.url ? out : undefined;
      }
      const k = key(chainId, token.toLowerCase());
      const out: TokenLinks = {};
      const logo = logos.get(k);
      if (logo) out.logo = logo;
      const url =
        urls.get(k) ?? (explorer ? `${explorer}/token/${token.toLowerCase()}` : undefined);
      if (url) out.url = url;
      return out.logo || out.url ? out : undefined;
    },
    get size() {
      return new Set([...logos.keys(), ...urls.keys()]).size;
    },
  };
}
