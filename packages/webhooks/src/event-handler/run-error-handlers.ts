import { isThenable } from '../is-thenable.js';
import type { WebhookEventHandlerError } from '../types.js';
import type { EventHandlerState } from './event-handler-state.js';

/**
 * Starts every `onError` handler with `error` without awaiting them. A handler that throws or
 * rejects is logged through `log.error`; it never becomes an unhandled rejection.
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
    state.log.error('An "error" event handler failed', failure);
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
