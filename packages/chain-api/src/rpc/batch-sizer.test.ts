import { describe, expect, it } from 'vitest';
import { BatchSizer } from './batch-sizer.js';

describe('BatchSizer', () => {
  it('starts at the maximum, per method', () => {
    const s = new BatchSizer(50, 4_000);
    expect(s.size('eth_getBlockByNumber')).toBe(50);
    s.failed('debug_traceBlockByNumber', 50);
    expect(s.size('debug_traceBlockByNumber')).toBe(25);
    expect(s.size('eth_getBlockByNumber')).toBe(50);
  });

  it('halves on a slow answer and on failures, down to one and never below', () => {
    const s = new BatchSizer(50, 4_000);
    s.answered('m', 50, 9_000);
    expect(s.size('m')).toBe(25);
    for (let i = 0; i < 10; i++) s.failed('m', s.size('m'));
    expect(s.size('m')).toBe(1);
    s.answered('m', 1, 60_000); // a single slow call cannot be split
    expect(s.size('m')).toBe(1);
  });

  it('a failure of a batch already smaller than the size halves that batch', () => {
    const s = new BatchSizer(50, 4_000);
    s.failed('m', 10);
    expect(s.size('m')).toBe(5);
  });

  it('grows back by a quarter while full batches answer well within the target, up to the maximum', () => {
    const s = new BatchSizer(50, 4_000);
    s.failed('m', 8); // 4
    s.answered('m', 4, 100);
    expect(s.size('m')).toBe(5);
    s.answered('m', 2, 100); // a partial batch says nothing about a full one
    expect(s.size('m')).toBe(5);
    s.answered('m', 5, 2_000); // within target but not well within: kept
    expect(s.size('m')).toBe(5);
    for (let i = 0; i < 40; i++) s.answered('m', s.size('m'), 10);
    expect(s.size('m')).toBe(50);
  });
});
