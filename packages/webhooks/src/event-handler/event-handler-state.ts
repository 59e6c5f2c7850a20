import type { Logger } from '../log.js';
import type { TransformMethod } from '../types.js';

/** Handlers are stored untyped; each is called with the event it was registered for. */
export type StoredHandler = (event: never) => unknown;

export interface EventHandlerState {
  /** Handlers per name; `*` holds `onAny` handlers, `error` holds `onError` handlers. */
  hooks: Map<string, StoredHandler[]>;
  log: Logger;
  transform: TransformMethod<unknown> | undefined;
}
