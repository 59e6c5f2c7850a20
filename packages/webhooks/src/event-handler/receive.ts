import { InvalidArgumentError } from '../errors.js';
import { isThenable } from '../is-thenable.js';
import type {
  EmitterWebhookEvent,
  ReceivedEvent,
  WebhookError,
  WebhookEventHandlerError,
} from '../types.js';
import type { EventHandlerState, StoredHandler } from './event-handler-state.js';
import { runErrorHandlers } from './run-error-handlers.js';
import { toWebhookError } from './to-webhook-error.js';

type Call = (event: unknown) => unknown;

/**
 * Dispatches one parsed delivery. Handlers for `<event>.<action>`, then `<event>`, then `onAny`
 * are started in that order and run concurrently; the promise settles when all have. If any
 * failed it rejects with an `AggregateError` (`.errors`: every failure, in start order;
 * `.event`: the event) and the `onError` handlers get that same error, not awaited.
 * `transform` runs once per delivery, for `on()` handlers only.
 *
 * @example
 * ```ts
 * await receive(state, { id: '1', name: 'issues', payload: { action: 'opened', issue } });
 * ```
 */
export function receive(state: EventHandlerState, event: ReceivedEvent): Promise<void> {
  const invalid = checkEvent(event);
  if (invalid !== undefined) {
    return Promise.reject(new AggregateError([invalid], invalid.message));
  }
  const { name, payload } = event;
  const action = (payload as { action?: unknown }).action;
  const actionHandlers =
    typeof action === 'string' && action !== '' ? state.hooks.get(`${name}.${action}`) : undefined;
  const nameHandlers = state.hooks.get(name);
  const anyHandlers = state.hooks.get('*');
  // Snapshot: a handler that (un)registers handlers must not change this dispatch.
  const onHandlers: StoredHandler[] = [];
  if (actionHandlers !== undefined) onHandlers.push(...actionHandlers);
  if (nameHandlers !== undefined) onHandlers.push(...nameHandlers);
  const anyList = anyHandlers === undefined ? [] : anyHandlers.slice();
  const total = onHandlers.length + anyList.length;
  if (total === 0) return Promise.resolve();

  const typedEvent = event as EmitterWebhookEvent;
  const failures: (WebhookError | undefined)[] = new Array(total);
  const pending: Promise<void>[] = [];
  const start = (index: number, handler: StoredHandler, argument: unknown): void => {
    const fail = (thrown: unknown): void => {
      failures[index] = toWebhookError(thrown, typedEvent);
    };
    try {
      const result = (handler as Call)(argument);
      if (isThenable(result)) pending.push(Promise.resolve(result).then(noop, fail));
    } catch (thrown) {
      fail(thrown);
    }
  };
  const finish = (): void => {
    const errors = failures.filter((failure): failure is WebhookError => failure !== undefined);
    if (errors.length === 0) return;
    const error = new AggregateError(
      errors,
      errors.map((failure) => failure.message).join('\n'),
    ) as WebhookEventHandlerError;
    error.event = typedEvent;
    runErrorHandlers(state, error);
    throw error;
  };
  const startAll = (transformed: unknown, transformError?: unknown): Promise<void> => {
    for (let i = 0; i < onHandlers.length; i++) {
      if (transformError === undefined) start(i, onHandlers[i] as StoredHandler, transformed);
    }
    // One failed transform is one failure, not one per handler.
    if (transformError !== undefined) failures[0] = toWebhookError(transformError, typedEvent);
    for (let i = 0; i < anyList.length; i++) {
      start(onHandlers.length + i, anyList[i] as StoredHandler, event);
    }
    if (pending.length === 0) {
      try {
        finish();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return Promise.all(pending).then(finish);
  };

  if (state.transform === undefined || onHandlers.length === 0) return startAll(event);
  const transform = state.transform;
  return new Promise<unknown>((resolve) => resolve(transform(typedEvent))).then(
    (transformed) => startAll(transformed),
    (thrown: unknown) => startAll(undefined, thrown ?? new Error('transform rejected')),
  );
}

function checkEvent(event: ReceivedEvent): Error | undefined {
  if (event === null || typeof event !== 'object') {
    return new InvalidArgumentError('receive(): event object { id, name, payload } required');
  }
  if (typeof event.name !== 'string' || event.name === '') {
    return new InvalidArgumentError('Event name not passed');
  }
  if (event.payload === null || typeof event.payload !== 'object') {
    return new InvalidArgumentError('Event payload not passed');
  }
  return undefined;
}

function noop(): void {}
