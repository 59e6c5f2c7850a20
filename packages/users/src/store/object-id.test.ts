import { describe, expect, it } from 'vitest';
import { newObjectId, OBJECT_ID } from './object-id.js';

describe('newObjectId', () => {
  it('makes unique 24-hex ids that start with the creation time in seconds', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newObjectId()));
    expect(ids.size).toBe(10_000);
    for (const id of ids) expect(id).toMatch(OBJECT_ID);
    const id = newObjectId(Date.UTC(2024, 0, 1));
    expect(Number.parseInt(id.slice(0, 8), 16)).toBe(Date.UTC(2024, 0, 1) / 1000);
  });
});
