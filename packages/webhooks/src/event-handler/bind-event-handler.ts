import type { EmitterWebhookEventName } from '../event-names/event-name-types.js';
import type {
  AnyHandlerFunction,
  ErrorHandlerFunction,
  HandlerFunction,
  ReceivedEvent,
  RemoveHandlerFunction,
} from '../types.js';
import type { EventHandlerState, StoredHandler } from './event-handler-state.js';
import { on } from './on.js';
import { onAny } from './on-any.js';
import { onError } from './on-error.js';
import { receive } from './receive.js';
import { removeListener } from './remove-listener.js';

/** The event registry: what `Webhooks` exposes besides signing and verification. */
export interface EventHandler<TTransformed = unknown> {
  /** Registers a handler for event names and/or `<event>.<action>` names. */
  on<TName extends EmitterWebhookEventName>(
    name: TName | ReadonlyArray<TName>,
    handler: HandlerFunction<TName, TTransformed>,
  ): void;
  /** Registers a handler for every event (untransformed). */
  onAny(handler: AnyHandlerFunction): void;
  /** Registers a handler for handler failures and failed verifications. */
  onError(handler: ErrorHandlerFunction<TTransformed>): void;
  /** Removes the most recent registration of `handler`; `*` for onAny, `error` for onError. */
  removeListener(name: 'error', handler: ErrorHandlerFunction<TTransformed>): void;
  removeListener<TName extends EmitterWebhookEventName | '*'>(
    name: TName | ReadonlyArray<TName>,
    handler: RemoveHandlerFunction<TName, TTransformed>,
  ): void;
  /** Dispatches a parsed delivery to the matching handlers (an `Error` rejects, as in octokit). */
  receive(event: ReceivedEvent | Error): Promise<void>;
}

/**
 * Binds the registry methods to one state, so they can be passed around detached.
 *
 * @example
 * ```ts
 * const { on, receive } = bindEventHandler(createEventHandlerState());
 * ```
 */
export function bindEventHandler<TTransformed = unknown>(
  state: EventHandlerState,
): EventHandler<TTransformed> {
  return {
    on: (name, handler) => on(state, name, handler as StoredHandler),
    onAny: (handler) => onAny(state, handler as StoredHandler),
    onError: (handler) => onError(state, handler as StoredHandler),
    removeListener: (name: string | ReadonlyArray<string>, handler: StoredHandler) =>
      removeListener(state, name, handler),
    receive: (event) => receive(state, event as ReceivedEvent),
  };
}
