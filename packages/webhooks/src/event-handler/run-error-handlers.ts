import { isThenable } from '../is-thenable.js';
import { logSafely } from '../log.js';
import type { WebhookEventHandlerError } from '../types.js';
import type { EventHandlerState } from './event-handler-state.js';

/**
 * Starts every `onError` handler with `error` without awaiting them. A handler that throws or
 * rejects is logged through `log.error` (an `AggregateError` holding the failure, the original
 * error as its `cause`); it never becomes an unhandled rejection.
 *
 * @example
 * ```ts
 * runErrorHandlers(state, aggregateError);
 * ```
 */
export function runErrorHandlers(state: EventHandlerState, error: WebhookEventHandlerError): void {
  const handlers = state.hooks.get('error');
  if (handlers === undefined) return;
  const report = (failure: unknown): void => {
    // An AggregateError, like everything passed to log.error (loggers may be typed for it).
    logSafely(
      state.log,
      'error',
      new AggregateError(
        [failure],
        `An "error" event handler failed: ${failure instanceof Error ? failure.message : String(failure)}`,
        { cause: error },
      ),
    );
  };
  for (const handler of handlers.slice()) {
    try {
      const result = (handler as (error: WebhookEventHandlerError) => unknown)(error);
      if (isThenable(result)) result.then(undefined, report);
    } catch (failure) {
      report(failure);
    }
  }
}
