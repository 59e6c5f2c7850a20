import type { EventHandlerState, StoredHandler } from './event-handler-state.js';

/**
 * Appends a handler to the list for `name`.
 *
 * @example
 * ```ts
 * addHandler(state, 'push', handler);
 * ```
 */
export function addHandler(state: EventHandlerState, name: string, handler: StoredHandler): void {
  const list = state.hooks.get(name);
  if (list === undefined) state.hooks.set(name, [handler]);
  else list.push(handler);
}
