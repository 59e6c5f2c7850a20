import { addHandler } from './add-handler.js';
import { assertHandler } from './assert-handler.js';
import type { EventHandlerState, StoredHandler } from './event-handler-state.js';
import { validateEventName } from './validate-event-name.js';

/**
 * Registers `handler` for one name or each of several names. Unknown names are registered with
 * a warning (new provider events keep working); `*` and `error` throw (names before them in an
 * array stay registered).
 *
 * @example
 * ```ts
 * on(state, ['issues.opened', 'issues.reopened'], handler);
 * ```
 */
export function on(
  state: EventHandlerState,
  nameOrNames: string | ReadonlyArray<string>,
  handler: StoredHandler,
): void {
  assertHandler('on', handler);
  // Anything but an array is validated as a single name (non-strings throw there).
  const names: ReadonlyArray<string> = Array.isArray(nameOrNames)
    ? nameOrNames
    : [nameOrNames as string];
  // One name at a time, as `@octokit/webhooks` does: in `on(['push', '*'], fn)` the names before
  // the bad one stay registered when it throws.
  for (const name of names) {
    validateEventName(name, { onUnknownEventName: 'warn', log: state.log });
    addHandler(state, name, handler);
  }
}
