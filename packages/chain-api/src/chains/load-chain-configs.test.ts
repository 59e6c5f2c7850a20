import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseChainsFile } from './chains-file.js';
import { ChainConfigError } from './errors.js';
import { getKnownChain } from './known-chains.js';
import { loadChainConfigs, redactRpcUrl } from './load-chain-configs.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-chains-'));
let n = 0;
function file(content: string): string {
  const path = join(dir, `chains-${n++}.json`);
  writeFileSync(path, content);
  return path;
}

async function loadError(env: NodeJS.ProcessEnv): Promise<ChainConfigError> {
  try {
    await loadChainConfigs(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ChainConfigError);
    return err as ChainConfigError;
  }
  throw new Error('expected loadChainConfigs to throw');
}

describe('loadChainConfigs', () => {
  it('indexes nothing without RPC URLs', async () => {
    expect(await loadChainConfigs({})).toEqual([]);
  });

  it('builds well-known chains from RPC_URL_<id> alone, sorted by id', async () => {
    const chains = await loadChainConfigs({
      RPC_URL_8453: 'https://base.example/v2/secret',
      RPC_URL_1: 'wss://eth.example',
      RPC_URL_10: '  ',
      OTHER: 'x',
    });
    expect(chains.map((c) => c.name)).toEqual(['ethereum', 'base']);
    expect(chains[0]?.rpcUrl).toBe('wss://eth.example');
    expect(chains[1]?.stablecoins).toContain('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
    // A copy: changing it does not touch the registry.
    chains[0]?.stablecoins.push('0x0000000000000000000000000000000000000001');
    expect(getKnownChain(1)?.stablecoins).toHaveLength(3);
  });

  it('accepts unknown chain ids with generic defaults', async () => {
    const [chain] = await loadChainConfigs({ RPC_URL_424242: 'http://127.0.0.1:8545' });
    expect(chain).toMatchObject({
      chainId: 424242,
      name: 'chain_424242',
      nativeSymbol: 'ETH',
      tags: ['default'],
    });
  });

  it('applies CHAINS_FILE overrides and adds chains that carry an rpc_url', async () => {
    const path = file(
      JSON.stringify({
        chains: [
          {
            chain_id: 1,
            start_block: '18000000',
            finality_depth: 12,
            stablecoins: ['0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
            tags: ['default', 'mainnet', 'l1'],
          },
          {
            chainId: 777,
            name: 'my_chain',
            rpcUrl: 'http://node:8545',
            nativeSymbol: 'MYC',
            wrapped_native: '0x00000000000000000000000000000000000000AA',
            uniswap_v2_factories: ['0x00000000000000000000000000000000000000bb'],
          },
          { chain_id: 5, name: 'unused_chain' },
        ],
      }),
    );
    const chains = await loadChainConfigs({ CHAINS_FILE: path, RPC_URL_1: 'http://eth:8545' });
    expect(chains.map((c) => c.chainId)).toEqual([1, 777]);
    expect(chains[0]).toMatchObject({
      name: 'ethereum',
      startBlock: 18000000n,
      finalityDepth: 12,
      stablecoins: ['0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'],
      tags: ['default', 'mainnet', 'l1'],
      wrappedNative: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    });
    expect(chains[1]).toMatchObject({
      name: 'my_chain',
      rpcUrl: 'http://node:8545',
      nativeSymbol: 'MYC',
      wrappedNative: '0x00000000000000000000000000000000000000aa',
      uniswapV2Factories: ['0x00000000000000000000000000000000000000bb'],
    });
  });

  it('lets RPC_URL_<id> win over rpc_url in the file', async () => {
    const path = file(JSON.stringify([{ chain_id: 1, rpc_url: 'http://from-file' }]));
    const [chain] = await loadChainConfigs({ CHAINS_FILE: path, RPC_URL_1: 'http://from-env' });
    expect(chain?.rpcUrl).toBe('http://from-env');
  });

  it.each([
    [{ RPC_URL_MAINNET: 'http://x' }, 'RPC_URL_MAINNET', 'numeric chain id'],
    [{ RPC_URL_0: 'http://x' }, 'RPC_URL_0', 'positive integer'],
    [{ RPC_URL_1: 'ftp://x' }, 'RPC_URL_1', 'unsupported protocol'],
    [{ RPC_URL_1: 'not a url' }, 'RPC_URL_1', 'not a valid URL'],
    [{ RPC_URL_1: 'http://x', CHAINS_FILE: '/nonexistent/chains.json' }, 'CHAINS_FILE', 'ENOENT'],
  ])('rejects %o', async (env, source, message) => {
    const err = await loadError(env);
    expect(err.source).toContain(source);
    expect(err.message).toContain(message);
  });

  it('never echoes an RPC URL (it may hold an API key) in errors', async () => {
    const err = await loadError({ RPC_URL_1: 'gopher://host/SECRETKEY' });
    expect(err.message).not.toContain('SECRETKEY');
  });

  it('rejects invalid JSON and duplicate names with clear messages', async () => {
    const bad = await loadError({ CHAINS_FILE: file('{"chains": [') });
    expect(bad.message).toMatch(/invalid JSON/);
    const dup = await loadError({
      CHAINS_FILE: file(JSON.stringify([{ chain_id: 777, name: 'base' }])),
      RPC_URL_777: 'http://x',
      RPC_URL_8453: 'http://y',
    });
    expect(dup.message).toMatch(/both named "base"/);
  });
});

describe('parseChainsFile', () => {
  it.each([
    [42, 'CHAINS_FILE', 'expected {"chains": [...]}'],
    [{ chain: [] }, 'CHAINS_FILE.chain', 'unknown top-level field'],
    [{ chains: {} }, 'CHAINS_FILE.chains', 'expected an array'],
    [[1], 'CHAINS_FILE[0]', 'expected an object'],
    [[{ name: 'x' }], 'CHAINS_FILE[0]', 'missing "chain_id"'],
    [[{ chain_id: -1 }], 'CHAINS_FILE[0].chain_id', 'positive integer'],
    [[{ chain_id: 1.5 }], 'CHAINS_FILE[0].chain_id', 'positive integer'],
    [[{ chain_id: 1 }, { chain_id: '1' }], 'CHAINS_FILE[1].chain_id', 'duplicate chain id 1'],
    [[{ chain_id: 1, stablecoin: [] }], 'CHAINS_FILE[0].stablecoin', 'unknown field'],
    [[{ chain_id: 1, name: 'Base Mainnet' }], 'CHAINS_FILE[0].name', 'lower-case name'],
    [[{ chain_id: 1, tags: 'default' }], 'CHAINS_FILE[0].tags', 'array of tags'],
    [[{ chain_id: 1, tags: ['ok', 'Bad Tag'] }], 'CHAINS_FILE[0].tags[1]', 'lower-case tag'],
    [[{ chain_id: 1, stablecoins: ['0x123'] }], 'CHAINS_FILE[0].stablecoins[0]', '20-byte hex'],
    [[{ chain_id: 1, wrapped_native: 5 }], 'CHAINS_FILE[0].wrapped_native', '20-byte hex'],
    [[{ chain_id: 1, start_block: -5 }], 'CHAINS_FILE[0].start_block', 'non-negative integer'],
    [[{ chain_id: 1, start_block: '12abc' }], 'CHAINS_FILE[0].start_block', 'non-negative integer'],
    [[{ chain_id: 1, finality_depth: 'deep' }], 'CHAINS_FILE[0].finality_depth', 'integer from 0'],
    [
      [{ chain_id: 1, native_decimals: 99 }],
      'CHAINS_FILE[0].native_decimals',
      'integer from 0 to 36',
    ],
    [[{ chain_id: 1, native_symbol: '' }], 'CHAINS_FILE[0].native_symbol', 'non-empty string'],
    [
      [{ chain_id: 1, explorer_url: 'javascript:alert(1)' }],
      'CHAINS_FILE[0].explorer_url',
      'http(s) URL',
    ],
    [
      [{ chain_id: 1, rpc_url: 'file:///etc/passwd' }],
      'CHAINS_FILE[0].rpc_url',
      'unsupported protocol',
    ],
    [[{ chain_id: 1, tokens: {} }], 'CHAINS_FILE[0].tokens', 'expected an array'],
    [
      [{ chain_id: 1, tokens: [{ address: '0x1' }] }],
      'CHAINS_FILE[0].tokens[0].address',
      '20-byte hex',
    ],
    [
      [{ chain_id: 1, tokens: [{ address: `0x${'a'.repeat(40)}`, logo: 'ftp://x' }] }],
      'CHAINS_FILE[0].tokens[0].logo',
      'http(s) URL',
    ],
    [
      [{ chain_id: 1, tokens: [{ address: `0x${'a'.repeat(40)}`, icon: 'x' }] }],
      'CHAINS_FILE[0].tokens[0].icon',
      'unknown field',
    ],
    [
      [
        {
          chain_id: 1,
          tokens: [{ address: `0x${'a'.repeat(40)}` }, { address: `0x${'A'.repeat(40)}` }],
        },
      ],
      'CHAINS_FILE[0].tokens[1].address',
      'duplicate token',
    ],
  ])('rejects %j', (json, source, message) => {
    let error: unknown;
    try {
      parseChainsFile(json);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ChainConfigError);
    expect((error as ChainConfigError).source).toBe(source);
    expect((error as ChainConfigError).message).toContain(message);
  });

  it('parses per-token logo/url entries', () => {
    const [o] = parseChainsFile([
      {
        chain_id: 8453,
        tokens: [
          {
            address: `0x${'A'.repeat(40)}`,
            logo: 'https://x.example/a.png',
            url: 'https://a.example',
          },
          { address: `0x${'b'.repeat(40)}` },
        ],
      },
    ]);
    expect(o?.tokens).toEqual([
      { address: `0x${'a'.repeat(40)}`, logo: 'https://x.example/a.png', url: 'https://a.example' },
      { address: `0x${'b'.repeat(40)}` },
    ]);
  });

  it('treats null as "keep the built-in value" and dedupes address lists', () => {
    const [o] = parseChainsFile([
      {
        chain_id: 1,
        wrapped_native: null,
        stablecoins: [
          '0x00000000000000000000000000000000000000AA',
          '0x00000000000000000000000000000000000000aa',
        ],
      },
    ]);
    expect(o).toEqual({ chainId: 1, stablecoins: ['0x00000000000000000000000000000000000000aa'] });
  });
});

describe('redactRpcUrl', () => {
  it('keeps only scheme and host', () => {
    expect(redactRpcUrl('https://eth-mainnet.g.alchemy.com/v2/SECRET')).toBe(
      'https://eth-mainnet.g.alchemy.com/***',
    );
    expect(redactRpcUrl('http://user:pw@127.0.0.1:8545')).toBe('http://127.0.0.1:8545/***');
    expect(redactRpcUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
    expect(redactRpcUrl('nope')).toBe('<invalid url>');
  });
});
