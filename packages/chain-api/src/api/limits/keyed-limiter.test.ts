import { describe, expect, it } from 'vitest';
import { KeyedLimiter } from './keyed-limiter.js';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

describe('KeyedLimiter', () => {
  it('limits each key on its own: a flooding key queues behind itself only', async () => {
    const slots = new KeyedLimiter(2);
    const g = gate();
    const flood = Array.from({ length: 10 }, () => slots.run('a', () => g.opened));
    expect(slots.load('a')).toEqual({ active: 2, waiting: 8 });
    // Key b runs at once although key a has ten runs pending.
    expect(await slots.run('b', async () => 'b ran')).toBe('b ran');
    g.open();
    await Promise.all(flood);
    expect(slots.load('a')).toEqual({ active: 0, waiting: 0 });
  });

  it('serves waiters in arrival order and frees the slot when a run throws', async () => {
    const slots = new KeyedLimiter(1);
    const order: number[] = [];
    const first = slots.run('k', async () => {
      throw new Error('boom');
    });
    const rest = [1, 2, 3].map((n) => slots.run('k', async () => void order.push(n)));
    await expect(first).rejects.toThrow('boom');
    await Promise.all(rest);
    expect(order).toEqual([1, 2, 3]);
  });

  it('a waiter whose signal aborts leaves the queue with the reason; others still run', async () => {
    const slots = new KeyedLimiter(1);
    const g = gate();
    const holder = slots.run('k', () => g.opened);
    const controller = new AbortController();
    const aborted = slots.run('k', async () => 'never', controller.signal);
    const after = slots.run('k', async () => 'ran');
    controller.abort(new Error('deadline'));
    await expect(aborted).rejects.toThrow('deadline');
    expect(slots.load('k').waiting).toBe(1);
    g.open();
    await holder;
    expect(await after).toBe('ran');
    // An already aborted signal never takes a slot.
    await expect(slots.run('k', async () => 1, controller.signal)).rejects.toThrow('deadline');
    expect(slots.load('k')).toEqual({ active: 0, waiting: 0 });
  });

  it('hold keeps a slot until released, once however often release is called', async () => {
    const slots = new KeyedLimiter(1);
    const release = await slots.hold('k');
    const waiter = slots.hold('k');
    expect(slots.load('k')).toEqual({ active: 1, waiting: 1 });
    // Another key is never behind k's held slot.
    (await slots.hold('other'))();
    release();
    release();
    const second = await waiter;
    expect(slots.load('k')).toEqual({ active: 1, waiting: 0 });
    second();
    expect(slots.load('k')).toEqual({ active: 0, waiting: 0 });
  });

  it('borrowWhenAlone: a key alone runs past its slots; once another key is active it waits again', async () => {
    const slots = new KeyedLimiter(2, { borrowWhenAlone: true });
    const busy = [await slots.hold('k'), await slots.hold('k'), await slots.hold('k')];
    expect(slots.load('k')).toEqual({ active: 3, waiting: 0 });
    const other = await slots.hold('other');
    // Another key is active: k's next run waits, and k's releases bring it back to its 2 slots
    // before any waiter of k runs.
    let ran = false;
    const waiter = slots.hold('k').then((release) => {
      ran = true;
      return release;
    });
    busy[0]!();
    await Promise.resolve();
    expect(ran).toBe(false);
    expect(slots.load('k')).toEqual({ active: 2, waiting: 1 });
    busy[1]!();
    const third = await waiter;
    expect(slots.load('k')).toEqual({ active: 2, waiting: 0 });
    // Alone again: k borrows once more.
    other();
    const extra = [await slots.hold('k'), await slots.hold('k')];
    expect(slots.load('k')).toEqual({ active: 4, waiting: 0 });
    for (const release of [busy[2]!, third, ...extra]) release();
    expect(slots.load('k')).toEqual({ active: 0, waiting: 0 });
  });

  it('without borrowWhenAlone a key alone still waits for its own slots', async () => {
    const slots = new KeyedLimiter(1);
    const release = await slots.hold('k');
    const waiter = slots.hold('k');
    expect(slots.load('k')).toEqual({ active: 1, waiting: 1 });
    release();
    (await waiter)();
    expect(slots.load('k')).toEqual({ active: 0, waiting: 0 });
  });

  it('activeIn: a key borrows database slots only while no other key has a request in flight', async () => {
    const requests = new KeyedLimiter(8, { borrowWhenAlone: true });
    const statements = new KeyedLimiter(2, { borrowWhenAlone: true, activeIn: requests });
    const heavyRequest = await requests.hold('heavy');
    const held = [1, 2, 3, 4].map(() => statements.hold('heavy'));
    // Alone in the requests: the heavy key runs four statements on two slots.
    expect(statements.load('heavy')).toEqual({ active: 4, waiting: 0 });
    // Another key's request is in flight (answered from a cache: no statement of its own), so
    // the heavy key's next statement waits until its own count is back under its slots.
    const lightRequest = await requests.hold('light');
    let ran = false;
    const waiter = statements.hold('heavy').then((release) => {
      ran = true;
      return release;
    });
    const releases = await Promise.all(held);
    releases[0]!();
    releases[1]!();
    await Promise.resolve();
    expect(ran).toBe(false);
    expect(statements.load('heavy')).toEqual({ active: 2, waiting: 1 });
    releases[2]!();
    const next = await waiter;
    expect(statements.load('heavy')).toEqual({ active: 2, waiting: 0 });
    lightRequest();
    // Alone again: the heavy key borrows once more.
    const extra = await statements.hold('heavy');
    expect(statements.load('heavy')).toEqual({ active: 3, waiting: 0 });
    for (const release of [releases[3]!, next, extra, heavyRequest]) release();
    expect(statements.load('heavy')).toEqual({ active: 0, waiting: 0 });
  });

  it('rememberMs: a key between two requests still counts as active for that long', async () => {
    const requests = new KeyedLimiter(8, { borrowWhenAlone: true, rememberMs: 200 });
    const statements = new KeyedLimiter(1, { borrowWhenAlone: true, activeIn: requests });
    const heavyRequest = await requests.hold('heavy');
    // The light key's request ended just now: the heavy key keeps to its one slot.
    (await requests.hold('light'))();
    const first = await statements.hold('heavy');
    let second: (() => void) | undefined;
    const waiter = statements.hold('heavy').then((release) => {
      second = release;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second).toBeUndefined();
    expect(statements.load('heavy')).toEqual({ active: 1, waiting: 1 });
    first();
    await waiter;
    // Once the light key has been gone for longer, the heavy key borrows again.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const borrowed = await statements.hold('heavy');
    expect(statements.load('heavy')).toEqual({ active: 2, waiting: 0 });
    for (const release of [second!, borrowed, heavyRequest]) release();
  });
});
