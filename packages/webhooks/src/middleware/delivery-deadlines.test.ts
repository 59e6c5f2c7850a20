import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDeliveryDeadlines } from './delivery-deadlines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const activeTimeouts = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

describe('createDeliveryDeadlines', () => {
  it('times out only the deliveries that have not settled, each at its own deadline', async () => {
    const deadlines = createDeliveryDeadlines(80);
    const firedAt = new Map<string, number>();
    const mark = (label: string) => () => firedAt.set(label, performance.now());
    const addedA = performance.now();
    const a = deadlines.add(mark('a'));
    deadlines.add(mark('b'));
    await sleep(40);
    const addedC = performance.now();
    const c = deadlines.add(mark('c'));
    deadlines.settle(a);
    await sleep(250);
    expect([...firedAt.keys()]).toEqual(['b', 'c']);
    // Never early: c waits for its own deadline, not b's.
    expect(firedAt.get('b')).toBeGreaterThanOrEqual(addedA + 80);
    expect(firedAt.get('c')).toBeGreaterThanOrEqual(addedC + 80);
    // Settling after the timeout, or twice, changes nothing.
    deadlines.settle(c);
    deadlines.settle(a);
    expect(firedAt.size).toBe(2);
  });

  it('a delivery that settles in time never fires, even when a later one does', async () => {
    const deadlines = createDeliveryDeadlines(30);
    const fired: number[] = [];
    const pending = Array.from({ length: 50 }, (_, i) => deadlines.add(() => fired.push(i)));
    for (const [i, p] of pending.entries()) if (i !== 17 && i !== 42) deadlines.settle(p);
    await sleep(80);
    expect(fired).toEqual([17, 42]);
  });

  it('holds the process open only while a delivery is pending', () => {
    const baseline = activeTimeouts();
    const deadlines = createDeliveryDeadlines(10_000);
    const first = deadlines.add(() => {});
    expect(activeTimeouts()).toBe(baseline + 1);
    deadlines.settle(first);
    expect(activeTimeouts()).toBe(baseline);
    // A new delivery while the (unref'd) timer is still armed holds the process open again.
    const second = deadlines.add(() => {});
    expect(activeTimeouts()).toBe(baseline + 1);
    deadlines.settle(second);
    expect(activeTimeouts()).toBe(baseline);
  });

  it('keeps firing later deadlines when a timeout callback throws', async () => {
    const deadlines = createDeliveryDeadlines(20);
    const fired: string[] = [];
    const onUncaught = (error: Error) => fired.push(`threw: ${error.message}`);
    const listeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', onUncaught);
    try {
      deadlines.add(() => {
        throw new Error('broken logger');
      });
      await sleep(10);
      deadlines.add(() => fired.push('later'));
      await sleep(60);
    } finally {
      process.removeListener('uncaughtException', onUncaught);
      for (const listener of listeners) process.on('uncaughtException', listener);
    }
    expect(fired).toEqual(['threw: broken logger', 'later']);
  });

  describe('on runtimes whose setTimeout returns a number (workerd, Deno)', () => {
    afterEach(() => {
      vi.unstubAllGlobals();
    });

    it('gives each delivery its own timer, set when it is added and cleared when it settles', async () => {
      const realSet = globalThis.setTimeout;
      const realClear = globalThis.clearTimeout;
      const live = new Map<number, ReturnType<typeof realSet>>();
      let nextId = 1;
      let set = 0;
      vi.stubGlobal('setTimeout', (fn: () => void, ms: number) => {
        const id = nextId++;
        set++;
        live.set(
          id,
          realSet(() => {
            live.delete(id);
            fn();
          }, ms),
        );
        return id;
      });
      vi.stubGlobal('clearTimeout', (id: number) => {
        realClear(live.get(id));
        live.delete(id);
      });
      const deadlines = createDeliveryDeadlines(60);
      const fired: string[] = [];
      const a = deadlines.add(() => fired.push('a'));
      deadlines.add(() => fired.push('b'));
      // One probe plus one timer per delivery: no shared timer serves another's deadline.
      expect(set).toBe(3);
      expect(live.size).toBe(2);
      deadlines.settle(a);
      expect(live.size).toBe(1);
      await sleep(150);
      expect(fired).toEqual(['b']);
      expect(live.size).toBe(0);
    });
  });
});
