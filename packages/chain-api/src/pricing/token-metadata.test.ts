import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChainConfig, getKnownChain, loadChainConfigs } from '../chains/index.js';
import { createTokenMetadataLookup, normalizeLogoUri } from './token-metadata.js';

const ethereum = getKnownChain(1)!;
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';

const custom: ChainConfig = {
  chainId: 777_001,
  name: 'custom',
  tags: [],
  nativeSymbol: 'CUS',
  nativeName: 'Custom',
  nativeDecimals: 18,
  startBlock: 0n,
  finalityDepth: 1,
  stablecoins: [],
  uniswapV2Factories: [],
  uniswapV3Factories: [],
  logoUrl: 'https://example.org/custom.png',
  tokens: [
    {
      address: '0x00000000000000000000000000000000000000aa',
      logo: 'ipfs://bafyexample/logo.png',
      url: 'https://token.example',
    },
    { address: '0x00000000000000000000000000000000000000bb', logo: 'javascript:alert(1)' },
  ],
};

describe('token metadata lookup', () => {
  const lookup = createTokenMetadataLookup([ethereum, custom]);

  it('logos from the bundled Uniswap token list, url from the explorer', () => {
    expect(lookup.get(1, USDC)).toEqual({
      logo: 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/ethereum/assets/0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48/logo.png',
      url: `https://etherscan.io/token/${USDC}`,
    });
    // mixed-case input is accepted
    expect(lookup.get(1, USDC.toUpperCase().replace('0X', '0x'))?.logo).toContain('trustwallet');
  });

  it('chains without an explorer or list entry get what exists, else undefined', () => {
    // Base USDC is in the list; Base is not in this lookup's chains, so no explorer url
    expect(lookup.get(8453, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913')).toEqual({
      logo: 'https://ethereum-optimism.github.io/data/USDC/logo.png',
    });
    expect(lookup.get(424_242, '0x0000000000000000000000000000000000000001')).toBeUndefined();
    expect(lookup.get(777_001, '0x0000000000000000000000000000000000000001')).toBeUndefined();
  });

  it('bridged copies inherit the origin logo', () => {
    // USDC's bridgeInfo maps chain 10 to 0x0b2c...ff85, listed there too; either way it has a logo
    expect(lookup.get(10, '0x0b2c639c533813f4aa9d7837caf62653d097ff85')?.logo).toMatch(
      /^https:\/\//,
    );
  });

  it('CHAINS_FILE tokens override and extend; unsafe logos are dropped', () => {
    expect(lookup.get(777_001, '0x00000000000000000000000000000000000000aa')).toEqual({
      logo: 'https://ipfs.io/ipfs/bafyexample/logo.png',
      url: 'https://token.example',
    });
    expect(lookup.get(777_001, '0x00000000000000000000000000000000000000bb')).toBeUndefined();
  });

  it('native: chain logo and explorer', () => {
    expect(lookup.get(777_001, 'native')).toEqual({ logo: 'https://example.org/custom.png' });
    expect(lookup.get(1, 'native')).toEqual({
      logo: 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/ethereum/info/logo.png',
      url: 'https://etherscan.io',
    });
    // Every default chain of the registry has a native logo, and only https ones.
    for (const chain of [56, 137, 100, 43114, 8453, 42161, 10]) {
      const known = getKnownChain(chain);
      if (!known) continue;
      expect(createTokenMetadataLookup([known]).get(chain, 'native')?.logo, String(chain)).toMatch(
        /^https:\/\/raw\.githubusercontent\.com\/trustwallet\/assets\/master\/blockchains\/[a-z]+\/info\/logo\.png$/,
      );
    }
    expect(lookup.get(5_555_555, 'native')).toBeUndefined();
    expect(lookup.size).toBeGreaterThan(1000);
  });

  it('normalizeLogoUri keeps http(s), maps ipfs, drops the rest', () => {
    expect(normalizeLogoUri('https://a.b/c.png')).toBe('https://a.b/c.png');
    expect(normalizeLogoUri('ipfs://Qm123')).toBe('https://ipfs.io/ipfs/Qm123');
    expect(normalizeLogoUri('data:image/png;base64,AAAA')).toBeUndefined();
    expect(normalizeLogoUri('not a url')).toBeUndefined();
    expect(normalizeLogoUri(42)).toBeUndefined();
  });

  it('reads a CHAINS_FILE tokens list end to end (logo, url, and overriding the bundled list)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-chains-'));
    try {
      const file = join(dir, 'chains.json');
      writeFileSync(
        file,
        JSON.stringify([
          {
            chain_id: 777_002,
            rpc_url: 'http://127.0.0.1:1',
            explorer_url: 'https://scan.example',
            tokens: [
              {
                address: '0x00000000000000000000000000000000000000Cc',
                logo: 'https://l.example/c.png',
              },
            ],
          },
          {
            chain_id: 1,
            rpc_url: 'http://127.0.0.1:2',
            tokens: [
              {
                address: USDC,
                logo: 'https://mine.example/usdc.png',
                url: 'https://www.circle.com',
              },
            ],
          },
        ]),
      );
      const chains = await loadChainConfigs({ CHAINS_FILE: file });
      const lookup = createTokenMetadataLookup(chains);
      expect(lookup.get(777_002, '0x00000000000000000000000000000000000000cc')).toEqual({
        logo: 'https://l.example/c.png',
        url: 'https://scan.example/token/0x00000000000000000000000000000000000000cc',
      });
      expect(lookup.get(1, USDC)).toEqual({
        logo: 'https://mine.example/usdc.png',
        url: 'https://www.circle.com',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
