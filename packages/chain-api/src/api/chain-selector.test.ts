import { describe, expect, it } from 'vitest';
import {
  chainIdsParam,
  createChainRegistry,
  resolveChains,
  resolveSingleChain,
} from './chain-selector.js';
import { ApiError } from './errors.js';

const served = [
  { chainId: 1, name: 'ethereum', tags: ['default', 'mainnet'] },
  { chainId: 8453, name: 'base', tags: ['default', 'mainnet'] },
  { chainId: 11155111, name: 'sepolia', tags: ['testnet'] },
  { chainId: 31337, name: 'devnet', tags: ['devnet'] },
];
const registry = createChainRegistry(served, [
  { chainId: 10, name: 'optimism', tags: ['mainnet'] },
]);
const opts = { resultNoun: 'Balances', docsUrl: 'http://x/v1/evm/supported-chains' };
const parse = (raw?: string) => chainIdsParam().parse(raw, 'chain_ids');
const ids = (raw?: string) =>
  resolveChains(registry, parse(raw), opts).chains.map((c) => c.chainId);

describe('chain_ids', () => {
  it('defaults to the default tag', () => {
    expect(ids(undefined)).toEqual([1, 8453]);
    expect(ids('')).toEqual([1, 8453]);
  });

  it('accepts ids, tags and mixed comma lists, deduplicated, in id order', () => {
    expect(ids('8453')).toEqual([8453]);
    expect(ids('testnet')).toEqual([11155111]);
    expect(ids('31337, 1,mainnet')).toEqual([1, 8453, 31337]);
    expect(ids('MAINNET')).toEqual([1, 8453]);
  });

  it('warns about unsupported ids and answers for the rest', () => {
    const result = resolveChains(registry, parse('1,9999,77777777777,9999'), opts);
    expect(result.chains.map((c) => c.chainId)).toEqual([1]);
    expect(result.warnings).toEqual([
      {
        code: 'UNSUPPORTED_CHAIN_IDS',
        message: expect.stringContaining('Balances are returned only for supported chains'),
        chain_ids: [9999, 77777777777],
        docs_url: opts.docsUrl,
      },
    ]);
  });

  it('rejects names, unknown tags and malformed items with a 400 naming chain_ids', () => {
    for (const raw of [
      'ethereum',
      'optimism',
      'nosuchtag',
      '1,,2',
      '0x1',
      '-1',
      '0',
      '1.5',
      '99999999999999999',
      'a b',
    ]) {
      const attempt = () => resolveChains(registry, parse(raw), opts);
      expect(attempt, raw).toThrow(ApiError);
      expect(attempt, raw).toThrow(/'chain_ids'/);
    }
    expect(() => resolveChains(registry, parse('ethereum'), opts)).toThrow(/chain id 1/);
  });

  it('a known tag with no served chain selects nothing, without error', () => {
    const empty = createChainRegistry([{ chainId: 1, name: 'ethereum', tags: ['mainnet'] }]);
    expect(resolveChains(empty, parse('testnet'), opts).chains).toEqual([]);
  });
});

describe('single chain (token balance)', () => {
  it('needs exactly one chain', () => {
    expect(resolveSingleChain(registry, parse('8453'), opts).chains.map((c) => c.chainId)).toEqual([
      8453,
    ]);
    expect(
      resolveSingleChain(registry, parse('devnet'), opts).chains.map((c) => c.chainId),
    ).toEqual([31337]);
    expect(() => resolveSingleChain(registry, undefined, opts)).toThrow(/required/);
    expect(() => resolveSingleChain(registry, parse('1,8453'), opts)).toThrow(/exactly one/);
    expect(() => resolveSingleChain(registry, parse('mainnet'), opts)).toThrow(/expands to 2/);
  });

  it('an unsupported single id is a warning with no balances', () => {
    const result = resolveSingleChain(registry, parse('424242'), opts);
    expect(result.chains).toEqual([]);
    expect(result.warnings[0]?.chain_ids).toEqual([424242]);
  });
});
