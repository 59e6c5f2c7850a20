import { describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, InvalidEventNameError } from '../src/errors.js';
import { createEventHandler } from '../src/event-handler/create-event-handler.js';
import type { EmitterWebhookEvent, WebhookEventHandlerError } from '../src/types.js';
import { captureLog } from './helpers/capture-log.js';

const issuesOpened = {
  id: 'delivery-1',
  name: 'issues' as const,
  payload: { action: 'opened', issue: { id: 1, number: 1, title: 't', user: null } },
};
const push = { id: 'delivery-2', name: 'push' as const, payload: { ref: 'refs/heads/main' } };

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('on / onAny / receive', () => {
  it('starts <event>.<action>, then <event>, then onAny handlers, in that order', async () => {
    const handler = createEventHandler({ log: captureLog() });
    const calls: string[] = [];
    handler.onAny(() => void calls.push('any'));
    handler.on('issues', () => void calls.push('issues'));
    handler.on('issues.opened', () => void calls.push('issues.opened'));
    handler.on('issues.closed', () => void calls.push('issues.closed'));
    handler.on('push', () => void calls.push('push'));
    await handler.receive(issuesOpened);
    expect(calls).toEqual(['issues.opened', 'issues', 'any']);
  });

  it('passes the event object { id, name, payload } unchanged', async () => {
    const handler = createEventHandler();
    const seen: unknown[] = [];
    handler.on('issues.opened', (event) => void seen.push(event));
    handler.onAny((event) => void seen.push(event));
    await handler.receive(issuesOpened);
    expect(seen).toEqual([issuesOpened, issuesOpened]);
    expect(seen[0]).toBe(issuesOpened);
  });

  it('emits events without actions under the event name only', async () => {
    const handler = createEventHandler();
    const calls: string[] = [];
    handler.on('push', () => void calls.push('push'));
    handler.onAny(({ name }) => void calls.push(`any:${name}`));
    await handler.receive(push);
    expect(calls).toEqual(['push', 'any:push']);
  });

  it('runs handlers concurrently and waits for all of them', async () => {
    const handler = createEventHandler();
    const order: string[] = [];
    let releaseSlow!: () => void;
    handler.on('issues.opened', async () => {
      order.push('slow start');
      await new Promise<void>((resolve) => {
        releaseSlow = resolve;
      });
      order.push('slow end');
    });
    handler.on('issues', async () => {
      order.push('fast start');
      order.push('fast end');
    });
    let settled = false;
    const done = handler.receive(issuesOpened).then(() => {
      settled = true;
    });
    await tick();
    expect(order).toEqual(['slow start', 'fast start', 'fast end']);
    expect(settled).toBe(false);
    releaseSlow();
    await done;
    expect(order.at(-1)).toBe('slow end');
  });

  it('registers one handler for several names', async () => {
    const handler = createEventHandler();
    const fn = vi.fn();
    handler.on(['issues.opened', 'push'], fn);
    await handler.receive(issuesOpened);
    await handler.receive(push);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('resolves with no value when nothing is registered', async () => {
    await expect(createEventHandler().receive(push)).resolves.toBeUndefined();
  });

  it('does not let a handler that registers handlers change the running dispatch', async () => {
    const handler = createEventHandler();
    const late = vi.fn();
    handler.on('push', () => handler.on('push', late));
    await handler.receive(push);
    expect(late).not.toHaveBeenCalled();
    await handler.receive(push);
    expect(late).toHaveBeenCalledTimes(1);
  });

  it('warns (not throws) on unknown names and still registers them', async () => {
    const log = captureLog();
    const handler = createEventHandler({ log });
    const fn = vi.fn();
    handler.on('brand_new_event' as 'push', fn);
    expect(log.lines.warn).toEqual([
      '"brand_new_event" is not a known webhook name (https://developer.github.com/v3/activity/events/types/)',
    ]);
    await handler.receive({ id: '1', name: 'brand_new_event', payload: {} });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('throws for *, error, non-strings and non-function handlers', () => {
    const handler = createEventHandler();
    expect(() => handler.on('*' as 'push', () => {})).toThrow(/onAny\(\)/);
    expect(() => handler.on('error' as 'push', () => {})).toThrow(/onError\(\)/);
    expect(() => handler.on(42 as unknown as 'push', () => {})).toThrow(InvalidEventNameError);
    expect(() => handler.on('push', undefined as never)).toThrow(InvalidArgumentError);
    expect(() => handler.onAny('x' as never)).toThrow(/onAny\(\): handler must be a function/);
    expect(() => handler.onError(null as never)).toThrow(/onError\(\): handler must be a function/);
  });

  it('keeps the names before an invalid one of an array registered (as @octokit/webhooks)', async () => {
    const handler = createEventHandler();
    const fn = vi.fn();
    expect(() => handler.on(['push', '*', 'ping'] as 'push'[], fn)).toThrow(TypeError);
    await handler.receive(push);
    expect(fn).toHaveBeenCalledTimes(1);
    await handler.receive({ id: '2', name: 'ping', payload: { zen: 'z', hook_id: 1 } });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['no event', undefined, 'receive(): event object { id, name, payload } required'],
    ['no name', { id: '1', payload: {} }, 'Event name not passed'],
    ['empty name', { id: '1', name: '', payload: {} }, 'Event name not passed'],
    ['no payload', { id: '1', name: 'push' }, 'Event payload not passed'],
    ['string payload', { id: '1', name: 'push', payload: '{}' }, 'Event payload not passed'],
  ])('rejects with an AggregateError for %s', async (_label, event, message) => {
    const error = await createEventHandler()
      .receive(event as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).message).toBe(message);
    expect((error as AggregateError).errors[0]).toBeInstanceOf(TypeError);
  });
});

describe('errors', () => {
  it('rejects with an AggregateError holding every failure and the event', async () => {
    const handler = createEventHandler();
    const first = new Error('first');
    handler.on('issues.opened', () => {
      throw first;
    });
    handler.on('issues', async () => {
      throw new Error('second');
    });
    handler.onAny(() => {});
    const error = (await handler.receive(issuesOpened).catch((e: unknown) => e)) as
      | WebhookEventHandlerError
      | undefined;
    expect(error).toBeInstanceOf(AggregateError);
    expect(error?.errors.map((e) => e.message)).toEqual(['first', 'second']);
    expect(error?.errors[0]).toBe(first);
    expect(error?.message).toBe('first\nsecond');
    expect(error?.event).toBe(issuesOpened);
    expect(error?.errors[0]?.event).toBe(issuesOpened);
  });

  it('keeps errors in start order even when they settle in reverse', async () => {
    const handler = createEventHandler();
    handler.on('issues.opened', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('slow');
    });
    handler.on('issues', async () => {
      throw new Error('fast');
    });
    const error = (await handler.receive(issuesOpened).catch((e: unknown) => e)) as AggregateError;
    expect(error.errors.map((e: Error) => e.message)).toEqual(['slow', 'fast']);
  });

  it('wraps thrown non-errors and frozen errors', async () => {
    const handler = createEventHandler();
    const frozen = Object.freeze(new Error('frozen'));
    handler.on('push', () => {
      throw 'a string';
    });
    handler.on('push', () => Promise.reject(42));
    handler.on('push', () => {
      throw frozen;
    });
    const error = (await handler.receive(push).catch((e: unknown) => e)) as AggregateError;
    expect(error.errors.map((e: Error) => e.message)).toEqual([
      'a string',
      'Handler threw a non-Error value: 42',
      'frozen',
    ]);
    expect(error.errors[2].cause).toBe(frozen);
    for (const e of error.errors) expect(e.event).toBe(push);
  });

  it('calls onError handlers with the same error, without awaiting them', async () => {
    const handler = createEventHandler();
    handler.on('push', () => {
      throw new Error('boom');
    });
    let release!: () => void;
    const received: WebhookEventHandlerError[] = [];
    handler.onError(async (error) => {
      received.push(error);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const error = await handler.receive(push).catch((e: unknown) => e);
    // receive settled although the error handler is still pending.
    expect(received).toEqual([error]);
    expect(received[0]?.event).toBe(push);
    release();
  });

  it('logs failing error handlers (sync and async) and never crashes', async () => {
    const log = captureLog();
    const handler = createEventHandler({ log });
    handler.on('push', () => {
      throw new Error('boom');
    });
    handler.onError(() => {
      throw new Error('sync error handler failure');
    });
    handler.onError(async () => {
      throw new Error('async error handler failure');
    });
    const later = vi.fn();
    handler.onError(later);
    await expect(handler.receive(push)).rejects.toThrow('boom');
    await tick();
    expect(later).toHaveBeenCalledTimes(1);
    expect(log.lines.error).toEqual([
      'AggregateError: An "error" event handler failed: sync error handler failure',
      'AggregateError: An "error" event handler failed: async error handler failure',
    ]);
  });

  it('does not call onError handlers when every handler succeeds', async () => {
    const handler = createEventHandler();
    const onError = vi.fn();
    handler.onError(onError);
    handler.on('push', async () => {});
    await handler.receive(push);
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('transform', () => {
  it('applies to on() handlers only, once per delivery, and may be async', async () => {
    const transform = vi.fn(async (event: EmitterWebhookEvent) => ({ ...event, extra: 'yes' }));
    const handler = createEventHandler({ transform });
    const seen: unknown[] = [];
    handler.on('issues.opened', (event) => void seen.push(event.extra));
    handler.on('issues', (event) => void seen.push(event.extra));
    handler.onAny((event) => void seen.push('extra' in event ? 'transformed' : 'raw'));
    await handler.receive(issuesOpened);
    expect(transform).toHaveBeenCalledTimes(1);
    expect(transform).toHaveBeenCalledWith(issuesOpened);
    expect(seen).toEqual(['yes', 'yes', 'raw']);
  });

  it('is skipped when no on() handler matches', async () => {
    const transform = vi.fn((event: EmitterWebhookEvent) => event);
    const handler = createEventHandler({ transform });
    handler.onAny(() => {});
    await handler.receive(push);
    expect(transform).not.toHaveBeenCalled();
  });

  it('a failing transform is one error; onAny handlers still run', async () => {
    const handler = createEventHandler({
      transform: () => {
        throw new Error('transform failed');
      },
    });
    const onHandler = vi.fn();
    const anyHandler = vi.fn();
    handler.on('push', onHandler);
    handler.on('push', onHandler);
    handler.onAny(anyHandler);
    const error = (await handler.receive(push).catch((e: unknown) => e)) as AggregateError;
    expect(error.errors.map((e: Error) => e.message)).toEqual(['transform failed']);
    expect(onHandler).not.toHaveBeenCalled();
    expect(anyHandler).toHaveBeenCalledTimes(1);
  });
});

describe('removeListener', () => {
  it('removes only the most recent registration of the same handler', async () => {
    const handler = createEventHandler();
    const fn = vi.fn();
    handler.on('push', fn);
    handler.on('push', fn);
    handler.removeListener('push', fn);
    await handler.receive(push);
    expect(fn).toHaveBeenCalledTimes(1);
    handler.removeListener('push', fn);
    await handler.receive(push);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('removes the latest registration, keeping the order of the others', async () => {
    const handler = createEventHandler();
    const calls: string[] = [];
    const a = () => void calls.push('a');
    const b = () => void calls.push('b');
    handler.on('push', a);
    handler.on('push', b);
    handler.on('push', a);
    handler.removeListener('push', a);
    await handler.receive(push);
    expect(calls).toEqual(['a', 'b']);
  });

  it('works for arrays, "*" (onAny) and "error" (onError)', async () => {
    const handler = createEventHandler();
    const fn = vi.fn();
    const any = vi.fn();
    const onError = vi.fn();
    handler.on(['push', 'issues'], fn);
    handler.onAny(any);
    handler.onError(onError);
    handler.removeListener(['push', 'issues'], fn);
    handler.removeListener('*', any);
    handler.removeListener('error', onError);
    handler.on('push', () => {
      throw new Error('x');
    });
    await handler.receive(push).catch(() => {});
    await handler.receive(issuesOpened);
    expect(fn).not.toHaveBeenCalled();
    expect(any).not.toHaveBeenCalled();
    expect(onError).not.toHaveBeenCalled();
  });

  it('ignores handlers and names that were never registered', () => {
    const handler = createEventHandler();
    expect(() => handler.removeListener('push', () => {})).not.toThrow();
    handler.on('push', () => {});
    expect(() => handler.removeListener('push', () => {})).not.toThrow();
  });
});
