import type {
  EmitterWebhookEventName,
  WebhookEventAction,
  WebhookEventName,
} from './event-names/event-name-types.js';
import type { Logger } from './log.js';
import type { WebhookEventPayload } from './payloads/event-payloads.js';

/**
 * The object handlers receive: `{ id, name, payload }`. With a name parameter, `name` and
 * `payload` are narrowed: for `EmitterWebhookEvent<'issues.opened'>`, `name` is `'issues'`
 * (the delivery's event name, as sent in `X-Provider-Event`) and `payload.action` is `'opened'`.
 * Without one it is the union over every event, narrowed by checking `name`.
 */
export type EmitterWebhookEvent<TName extends EmitterWebhookEventName = EmitterWebhookEventName> =
  TName extends `${infer TEvent extends WebhookEventName}.${infer TAction}`
    ? TAction extends WebhookEventAction<TEvent>
      ? { id: string; name: TEvent; payload: WebhookEventPayload<TEvent, TAction> }
      : never
    : TName extends WebhookEventName
      ? { id: string; name: TName; payload: WebhookEventPayload<TName> }
      : never;

/** A delivery as it arrives over HTTP: the payload is the exact signed text (or bytes). */
export interface EmitterWebhookEventWithStringPayloadAndSignature {
  id: string;
  name: string;
  payload: string | Uint8Array;
  signature: string;
}

/** A handler registered with `on()`; may be async. */
export type HandlerFunction<TName extends EmitterWebhookEventName, TTransformed = unknown> = (
  event: EmitterWebhookEvent<TName> & TTransformed,
) => unknown;

/**
 * A handler passed to `removeListener()`. With `*` among the names it may be an `onAny()`
 * handler, which sees every event.
 */
export type RemoveHandlerFunction<
  TName extends EmitterWebhookEventName | '*',
  TTransformed = unknown,
> = (
  event: '*' extends TName
    ? EmitterWebhookEvent
    : EmitterWebhookEvent<Exclude<TName, '*'>> & TTransformed,
) => unknown;

/** A handler registered with `onAny()`; receives every event, untransformed. */
export type AnyHandlerFunction = (event: EmitterWebhookEvent) => unknown;

/** The request of a failed outgoing API call, when a handler's error carries one. */
export interface WebhookErrorRequest {
  method: string;
  url: string;
  headers: Record<string, string | number | undefined>;
  body?: unknown;
  [option: string]: unknown;
}

/**
 * An error from one handler, with the event it was handling attached. Errors of API clients
 * (such as `RequestError`) keep their `status`, `request` and `response`.
 */
export type WebhookError = Error & {
  event?: EmitterWebhookEvent | UnverifiedWebhookEvent | undefined;
  status?: number | undefined;
  request?: WebhookErrorRequest | undefined;
  response?: unknown;
};

/** An `AggregateError` whose `errors` are `WebhookError`s. */
export interface AggregateWebhookError extends AggregateError {
  /** Every error thrown or rejected by a handler (or the verification error). */
  errors: WebhookError[];
}

/** An error passed to `onError()` handlers and rejected from `receive()`. */
export interface WebhookEventHandlerError<TTransformed = unknown> extends AggregateWebhookError {
  /** The event being handled: `{ id, name, payload }` (never the signature). */
  event: (EmitterWebhookEvent & TTransformed) | UnverifiedWebhookEvent;
}

/** The event of a delivery whose signature did not verify: the payload is still raw text. */
export interface UnverifiedWebhookEvent {
  id: string;
  name: string;
  payload: string;
}

export type ErrorHandlerFunction<TTransformed = unknown> = (
  error: WebhookEventHandlerError<TTransformed>,
) => unknown;

/** Turns the event before `on()` handlers see it; may be async. Not applied to `onAny()`. */
export type TransformMethod<TTransformed> = (
  event: EmitterWebhookEvent,
) => TTransformed | PromiseLike<TTransformed>;

/** Options of `new Webhooks()` and `createEventHandler()` (which ignores the secrets). */
export interface Options<TTransformed = unknown> {
  /** The secret configured at the provider. Required by `new Webhooks()`. */
  secret?: string | undefined;
  /** Older secrets still accepted while rotating: tried in order after `secret`. */
  additionalSecrets?: ReadonlyArray<string> | undefined;
  transform?: TransformMethod<TTransformed> | undefined;
  log?: Partial<Logger> | undefined;
}

/** @deprecated Use `Options`. */
export type EventHandlerOptions<TTransformed = unknown> = Options<TTransformed>;

export interface WebhooksOptions<TTransformed = unknown> extends Options<TTransformed> {
  /** The secret configured at the provider. Required. */
  secret: string;
}

/** Any event name `receive()` accepts: known names, plus names the table does not list yet. */
export type ReceivedEventName = EmitterWebhookEventName | (string & Record<never, never>);

/** What `receive()` takes: a parsed delivery. */
export interface ReceivedEvent {
  id: string;
  name: ReceivedEventName;
  payload: object;
}
