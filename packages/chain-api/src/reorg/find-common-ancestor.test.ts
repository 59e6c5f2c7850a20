import type { Queryable } from '@sluice/db';
import { describe, expect, it } from 'vitest';
import type { RpcCall, RpcClient } from '../rpc/index.js';
import { findCommonAncestor, ReorgTooDeepError } from './find-common-ancestor.js';

/** Store holding blocks 0..top with hashes `s<n>`; node answers `n<n>` except where `same` says. */
function fixture(top: number, same: (n: number) => boolean) {
  const asked: string[] = [];
  const db = {
    async query(_sql: string, params: unknown[]) {
      const [, lo, hi] = params as [number, string, string];
      const rows = [];
      for (let n = Math.max(0, Number(lo)); n <= Math.min(top, Number(hi)); n++)
        rows.push({ number: String(n), hash: `s${n}` });
      return { rows, rowCount: rows.length };
    },
  } as unknown as Queryable;
  const rpc = {
    async batch(calls: readonly RpcCall[]) {
      return calls.map((c) => {
        const tag = c.params[0] as string;
        asked.push(tag);
        if (!/^0x[0-9a-f]+$/.test(tag)) throw new Error(`invalid block tag ${tag}`);
        const n = Number(BigInt(tag));
        return { hash: same(n) ? `s${n}` : `n${n}` };
      });
    },
  } as unknown as RpcClient;
  return { db, rpc, asked };
}

describe('findCommonAncestor', () => {
  it('finds the highest block whose hash still matches', async () => {
    const { db, rpc } = fixture(100, (n) => n <= 57);
    expect(await findCommonAncestor(db, rpc, 1, 100n, -1n)).toBe(57n);
  });

  it('never asks the node for a negative block when the window reaches below genesis', async () => {
    const { db, rpc, asked } = fixture(40, () => false);
    expect(await findCommonAncestor(db, rpc, 1, 40n, -1n)).toBe(-1n);
    expect(asked).toContain('0x0');
    expect(asked.some((t) => t.includes('-'))).toBe(false);
  });

  it('throws ReorgTooDeepError when nothing in the stored window matches', async () => {
    const { db, rpc, asked } = fixture(100, (n) => n < 10);
    await expect(findCommonAncestor(db, rpc, 1, 100n, 80n)).rejects.toBeInstanceOf(
      ReorgTooDeepError,
    );
    expect(asked.map((t) => Number(BigInt(t))).every((n) => n >= 80)).toBe(true);
  });
});
