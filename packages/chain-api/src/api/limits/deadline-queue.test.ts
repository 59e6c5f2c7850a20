import { describe, expect, it } from 'vitest';
import { DeadlineQueue } from './deadline-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeadlineQueue', () => {
  it('expires entries in the order added, each after its own duration', async () => {
    const expired: { id: string; at: number }[] = [];
    const queue = new DeadlineQueue<string>(80, (id) =>
      expired.push({ id, at: performance.now() }),
    );
    const added = new Map<string, number>();
    for (const id of ['a', 'b', 'c']) {
      added.set(id, performance.now());
      queue.add(id);
      await sleep(30);
    }
    await sleep(120);
    expect(expired.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    for (const { id, at } of expired) expect(at - added.get(id)!).toBeGreaterThanOrEqual(79);
    expect(queue.size).toBe(0);
    queue.close();
  });

  it('a deleted entry never expires, and the next one still does on time', async () => {
    const expired: string[] = [];
    const queue = new DeadlineQueue<string>(60, (id) => expired.push(id));
    queue.add('answered');
    await sleep(20);
    queue.add('slow');
    queue.delete('answered');
    await sleep(50);
    // The timer armed for 'answered' fired, found it gone, and re-armed for 'slow'.
    expect(expired).toEqual([]);
    await sleep(40);
    expect(expired).toEqual(['slow']);
    queue.close();
  });

  it('close stops every pending deadline', async () => {
    const expired: string[] = [];
    const queue = new DeadlineQueue<string>(30, (id) => expired.push(id));
    queue.add('x');
    queue.close();
    await sleep(60);
    expect(expired).toEqual([]);
  });
});
