import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEVNET_CHAIN_ID, getKnownChain, knownChains, MULTICALL3_ADDRESS } from './known-chains.js';

const tsv = readFileSync(new URL('./__fixtures__/sim-chains.tsv', import.meta.url), 'utf8');
const peer = tsv
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [id, name, tags] = line.split('\t');
    return { chainId: Number(id), name, tags: tags ? tags.split(',') : [] };
  });

describe('knownChains', () => {
  it('lists every chain of the peer with the same name and tags', () => {
    expect(peer.length).toBeGreaterThan(60);
    for (const p of peer) {
      const chain = getKnownChain(p.chainId);
      expect(chain, `chain ${p.chainId}`).toBeDefined();
      expect(chain?.name).toBe(p.name);
      expect(chain?.tags).toEqual(p.tags);
    }
    expect(knownChains.length).toBe(peer.length + 1);
  });

  it('has the devnet tagged default and devnet', () => {
    const devnet = getKnownChain(DEVNET_CHAIN_ID);
    expect(devnet?.name).toBe('devnet');
    expect(devnet?.tags).toEqual(['default', 'devnet']);
    expect(devnet?.multicall3).toBe(MULTICALL3_ADDRESS);
  });

  it('has unique ids and names, lower-case addresses', () => {
    expect(new Set(knownChains.map((c) => c.chainId)).size).toBe(knownChains.length);
    expect(new Set(knownChains.map((c) => c.name)).size).toBe(knownChains.length);
    for (const c of knownChains) {
      const addresses = [
        ...c.stablecoins,
        ...c.uniswapV2Factories,
        ...c.uniswapV3Factories,
        ...(c.wrappedNative ? [c.wrappedNative] : []),
        ...(c.multicall3 ? [c.multicall3] : []),
      ];
      for (const a of addresses) expect(a, `${c.name} ${a}`).toMatch(/^0x[0-9a-f]{40}$/);
      expect(c.nativeSymbol.length).toBeGreaterThan(0);
      expect(c.nativeDecimals).toBe(18);
    }
  });

  it('knows the major chains well enough to price without configuration', () => {
    for (const name of ['ethereum', 'base', 'arbitrum', 'optimism', 'polygon', 'bnb']) {
      const c = knownChains.find((k) => k.name === name);
      expect(c?.stablecoins.length, name).toBeGreaterThanOrEqual(3);
      expect(c?.wrappedNative, name).toBeDefined();
      expect(c?.uniswapV2Factories.length, name).toBeGreaterThanOrEqual(1);
      expect(c?.uniswapV3Factories.length, name).toBeGreaterThanOrEqual(1);
      expect(c?.multicall3, name).toBe(MULTICALL3_ADDRESS);
    }
    const eth = getKnownChain(1);
    expect(eth?.stablecoins).toContain('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    expect(eth?.wrappedNative).toBe('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
    expect(eth?.uniswapV2Factories).toContain('0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f');
    expect(getKnownChain(137)?.nativeSymbol).toBe('POL');
    expect(getKnownChain(56)?.nativeSymbol).toBe('BNB');
  });

  it('is frozen so callers cannot corrupt the registry', () => {
    const eth = getKnownChain(1)!;
    expect(() => {
      (eth as { name: string }).name = 'x';
    }).toThrow();
    expect(() => eth.stablecoins.push('0x00')).toThrow();
  });
});
