import type { EventHandlerState, StoredHandler } from './event-handler-state.js';

/**
 * Removes the most recent registration of `handler` for each name. `*` removes an `onAny`
 * handler, `error` an `onError` handler. Unregistered handlers are ignored.
 *
 * @example
 * ```ts
 * removeListener(state, ['push', '*'], handler);
 * ```
 */
export function removeListener(
  state: EventHandlerState,
  nameOrNames: string | ReadonlyArray<string>,
  handler: StoredHandler,
): void {
  const names: ReadonlyArray<string> = Array.isArray(nameOrNames)
    ? nameOrNames
    : [nameOrNames as string];
  for (const name of names) {
    const list = state.hooks.get(name);
    if (list === undefined) continue;
    const index = list.lastIndexOf(handler);
    if (index === -1) continue;
    list.splice(index, 1);
    if (list.length === 0) state.hooks.delete(name);
  }
}
