import { InvalidArgumentError } from '../errors.js';
import { isThenable } from '../is-thenable.js';
import type {
  EmitterWebhookEvent,
  ReceivedEvent,
  WebhookError,
  WebhookEventHandlerError,
} from '../types.js';
import { checkDeliveryEventName } from './check-delivery-event-name.js';
import type { EventHandlerState, StoredHandler } from './event-handler-state.js';
import { runErrorHandlers } from './run-error-handlers.js';
import { toWebhookError } from './to-webhook-error.js';

type Call = (event: unknown) => unknown;

/**
 * Dispatches one parsed delivery. Handlers for `<event>.<action>`, then `<event>`, then `onAny`
 * are started in that order and run concurrently; the promise settles when all have. If any
 * failed it rejects with an `AggregateError` (`.errors`: every failure, in start order;
 * `.event`: the event) and the `onError` handlers get that same error, not awaited.
 * `transform` runs once per delivery, for `on()` handlers only. The names `*` and `error` are
 * refused (400) before any handler runs. Given an `Error` instead of an event, it rejects with
 * an `AggregateError` holding it and runs the `onError` handlers, as `@octokit/webhooks` does.
 *
 * @example
 * ```ts
 * await receive(state, { id: '1', name: 'issues', payload: { action: 'opened', issue } });
 * ```
 */
export function receive(state: EventHandlerState, event: ReceivedEvent | Error): Promise<void> {
  if (event instanceof Error) return receiveError(state, event);
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

/**
 * `receive(error)`, as in `@octokit/webhooks`: rejects with an `AggregateError` whose
 * `errors[0]` is `error` (and whose `event` is `error` itself) and hands it to `onError`.
 */
function receiveError(state: EventHandlerState, error: Error): Promise<void> {
  const aggregate = new AggregateError([error], error.message) as WebhookEventHandlerError;
  (aggregate as { event: unknown }).event = error;
  runErrorHandlers(state, aggregate);
  return Promise.reject(aggregate);
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
  // `*` and `error` would run the onAny() (twice) or onError() handlers with a delivery.
  if (event.name === '*' || event.name === 'error') return checkDeliveryEventName(event.name);
  return undefined;
}

function noop(): void {}
