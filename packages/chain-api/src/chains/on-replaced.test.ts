import { describe, expect, it } from 'vitest';
import { parseChainsFile } from './chains-file.js';

describe('CHAINS_FILE on_replaced', () => {
  it('accepts "stop" and "reindex" (snake or camel case)', () => {
    expect(parseChainsFile([{ chain_id: 1, on_replaced: 'reindex' }])[0]?.onReplaced).toBe(
      'reindex',
    );
    expect(parseChainsFile([{ chainId: 1, onReplaced: 'stop' }])[0]?.onReplaced).toBe('stop');
  });

  it('refuses anything else, naming the field', () => {
    expect(() => parseChainsFile([{ chain_id: 1, on_replaced: 'wipe' }], 'f.json')).toThrow(
      /f\.json\[0\]\.on_replaced.*expected "stop" or "reindex", got "wipe"/,
    );
    expect(() => parseChainsFile([{ chain_id: 1, on_replaced: true }], 'f.json')).toThrow(
      /on_replaced/,
    );
  });
});
