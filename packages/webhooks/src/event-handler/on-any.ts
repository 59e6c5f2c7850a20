import { addHandler } from './add-handler.js';
import { assertHandler } from './assert-handler.js';
import type { EventHandlerState, StoredHandler } from './event-handler-state.js';

/**
 * Registers a handler for every event (stored under `*`).
 *
 * @example
 * ```ts
 * onAny(state, ({ id, name }) => log.info({ id, name }, 'delivery'));
 * ```
 */
export function onAny(state: EventHandlerState, handler: StoredHandler): void {
  assertHandler('onAny', handler);
  addHandler(state, '*', handler);
}
