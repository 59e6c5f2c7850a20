import { describe, expect, it } from 'vitest';
import { chainStatus, type IndexerState } from './chain-status.js';

const base: IndexerState = {
  chain: { chainId: 1, name: 'ethereum' },
  caps: { traces: true, blockReceipts: true, multicall3: null },
  halted: undefined,
  leader: true,
  standby: null,
  checkpoint: { block: 100n, hash: '0x01', time: new Date(1_000_000) },
  head: 100n,
  caughtUp: true,
  rpcOk: true,
  readyLagBlocks: 64,
  extra: {},
  now: 1_060_000,
};

describe('chainStatus', () => {
  it('a caught-up leader at the head: ready, lag 0, its own sections', () => {
    const extra = { reconcile: { nonConserving: 0 } } as unknown as IndexerState['extra'];
    expect(chainStatus({ ...base, extra })).toEqual({
      chain_id: 1,
      name: 'ethereum',
      traces: 'supported',
      head_block: 100,
      indexed_block: 100,
      lag_seconds: 0,
      ready: true,
      ...extra,
    });
  });

  it('behind: lag is the indexed block age; not ready past readyLagBlocks, nor while catching up or with the RPC failing', () => {
    const behind = chainStatus({ ...base, head: 150n });
    expect(behind).toMatchObject({ lag_seconds: 60, ready: true });
    expect(chainStatus({ ...base, head: 165n }).ready).toBe(false);
    expect(chainStatus({ ...base, caughtUp: false }).ready).toBe(false);
    expect(chainStatus({ ...base, rpcOk: false }).ready).toBe(false);
    expect(chainStatus({ ...base, head: null })).toMatchObject({ lag_seconds: null, ready: false });
    expect(chainStatus({ ...base, caps: undefined }).traces).toBe('unknown');
    expect(chainStatus({ ...base, caps: { ...base.caps!, traces: false } }).traces).toBe(
      'unsupported',
    );
  });

  it('halted (here or as the standby reads it): an error, never ready', () => {
    for (const s of [
      { ...base, halted: 'replaced chain' },
      {
        ...base,
        leader: false,
        standby: { indexed: 1n, head: 2n, fresh: true, error: 'replaced chain' },
      },
    ]) {
      expect(chainStatus(s)).toEqual({
        chain_id: 1,
        name: 'ethereum',
        traces: 'supported',
        head_block: null,
        indexed_block: null,
        lag_seconds: null,
        ready: false,
        error: 'replaced chain',
      });
    }
  });

  it("a standby reports the leader's progress, ready while the leader writes", () => {
    const standby = { indexed: 90n, head: 95n, fresh: true };
    expect(chainStatus({ ...base, leader: false, standby })).toMatchObject({
      head_block: 95,
      indexed_block: 90,
      lag_seconds: null,
      ready: true,
    });
    expect(
      chainStatus({ ...base, leader: false, standby: { ...standby, fresh: false } }).ready,
    ).toBe(false);
    expect(chainStatus({ ...base, leader: false, standby: null })).toMatchObject({
      head_block: null,
      ready: false,
    });
  });
});
