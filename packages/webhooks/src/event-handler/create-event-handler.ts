import type { Options } from '../types.js';
import { bindEventHandler, type EventHandler } from './bind-event-handler.js';
import { createEventHandlerState } from './create-event-handler-state.js';

export type { EventHandler } from './bind-event-handler.js';

/**
 * Creates an event registry without signing (for deliveries verified elsewhere). Methods are
 * bound, so they can be passed around detached. `secret`/`additionalSecrets` are accepted (as
 * `@octokit/webhooks` does) and unused.
 *
 * @example
 * ```ts
 * const handler = createEventHandler({ transform: (event) => ({ ...event, received: Date.now() }) });
 * handler.on('issues.opened', ({ payload }) => console.log(payload.issue.title));
 * await handler.receive({ id: '1', name: 'issues', payload });
 * ```
 */
export function createEventHandler<TTransformed = unknown>(
  options: Options<TTransformed> = {},
): EventHandler<TTransformed> {
  return bindEventHandler<TTransformed>(createEventHandlerState(options));
}
