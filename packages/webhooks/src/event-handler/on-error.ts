import { addHandler } from './add-handler.js';
import { assertHandler } from './assert-handler.js';
import type { EventHandlerState, StoredHandler } from './event-handler-state.js';

/**
 * Registers a handler for handler failures and failed verifications (stored under `error`).
 */
export function onError(state: EventHandlerState, handler: StoredHandler): void {
  assertHandler('onError', handler);
  addHandler(state, 'error', handler);
}
