import { createLogger } from '../log.js';
import type { Options } from '../types.js';
import type { EventHandlerState } from './event-handler-state.js';

/**
 * Fresh registry state: no handlers, the logger with defaults filled in, the transform if any.
 *
 * @example
 * ```ts
 * const state = createEventHandlerState({ log: pino() });
 * ```
 */
export function createEventHandlerState<TTransformed>(
  options: Options<TTransformed> = {},
): EventHandlerState {
  return {
    hooks: new Map(),
    log: createLogger(options.log),
    transform: options.transform,
  };
}
