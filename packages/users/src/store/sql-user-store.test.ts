import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMigrations } from './migrations.js';
import { createSqlUserStore } from './sql-user-store.js';
import type { UserStore } from './user-store.js';

describe('SQL user store, sole-writer page cache (PGlite)', () => {
  let t: TestDatabase;
  let store: UserStore;
  const page = { limit: 100, offset: 0 };
  const ids = async () =>
    (JSON.parse((await store.listJson(page)).json) as { id: number }[]).map((u) => u.id);

  beforeAll(async () => {
    t = await createTestDatabase('pglite');
    await migrate(t.db, userMigrations);
    store = createSqlUserStore(t.db, { soleWriter: true });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('serves a cached page until a write through the store', async () => {
    const first = await store.listJson(page);
    expect(await store.listJson(page)).toBe(first); // same object: served from the cache
    await store.create({ id: 2, name: 'b', pro: 'x' });
    const second = await store.listJson(page);
    expect(second.version).not.toBe(first.version);
    expect(await ids()).toEqual([2]);
    await store.update(2, { name: 'B', pro: 'x' });
    expect(JSON.parse((await store.listJson(page)).json)[0].name).toBe('B');
    await store.remove(2);
    expect(await ids()).toEqual([]);
  });

  it('never keeps a page read while a write was finishing', async () => {
    for (let i = 10; i < 30; i++) {
      const [, created] = await Promise.all([
        store.listJson(page),
        store.create({ id: i, name: `n${i}`, pro: 'p' }),
        store.listJson(page),
      ]);
      expect(created?.id).toBe(i);
      expect(await ids()).toContain(i);
    }
    expect(await store.create({ id: 10, name: 'dup', pro: 'p' })).toBeUndefined();
    expect((await store.listJson(page)).total).toBe(20);
  });
});
