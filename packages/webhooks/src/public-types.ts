// The `@sluice/webhooks/types` entry: every public type under the names `@octokit/webhooks/types`
// uses, so `import type { … } from '@octokit/webhooks/types'` ports by changing the specifier.
import type { EventHandler } from './event-handler/bind-event-handler.js';
import type { EmitterWebhookEventName } from './event-names/event-name-types.js';
import type { Logger } from './log.js';
import type { WebhookDefinitions } from './payloads/event-payloads.js';
import type { Options } from './types.js';

export type { EventHandler } from './event-handler/bind-event-handler.js';
export type { ValidateEventNameOptions } from './event-handler/validate-event-name.js';
export type {
  EmitterEventNames,
  EmitterWebhookEventName,
  WebhookEventAction,
  WebhookEventName,
  WebhookEventNameWithAction,
} from './event-names/event-name-types.js';
export type { Logger } from './log.js';
export type { MiddlewareOptions } from './middleware/types.js';
export type {
  ActionPayloadMap,
  EventPayloadMap,
  UnmappedWebhookDefinition,
  WebhookDefinitions,
  WebhookEventPayload,
  WebhookSchemas,
} from './payloads/event-payloads.js';
export type { RelayMessage } from './relay/relay-message.js';
export type {
  AggregateWebhookError,
  AnyHandlerFunction,
  EmitterWebhookEvent,
  EmitterWebhookEventWithStringPayloadAndSignature,
  ErrorHandlerFunction,
  EventHandlerOptions,
  HandlerFunction,
  Options,
  ReceivedEvent,
  RemoveHandlerFunction,
  TransformMethod,
  UnverifiedWebhookEvent,
  WebhookError,
  WebhookErrorRequest,
  WebhookEventHandlerError,
  WebhooksOptions,
} from './types.js';

/** The event part of a name: `ExtractEvents<'issues' | 'issues.opened'>` is `'issues'`. */
export type ExtractEvents<TEventName> = TEventName extends `${string}.${string}`
  ? never
  : TEventName;

/** Every event name without an action (the names `X-Provider-Event` carries). */
export type WebhookEvents = ExtractEvents<EmitterWebhookEventName>;

/**
 * The payload of one upstream webhook definition, by its kebab-case name, e.g.
 * `WebhookEventDefinition<'check-run-completed'>` or
 * `WebhookEventDefinition<'provider-app-authorization-revoked'>`.
 */
export type WebhookEventDefinition<TDefinition extends keyof WebhookDefinitions> =
  WebhookDefinitions[TDefinition];

/** Handlers by name (`*` holds `onAny()` handlers, `error` the `onError()` ones). */
// biome-ignore lint/complexity/noBannedTypes: the peer's own type, so its State values assign to ours
export type Hooks = { [name: string]: Function[] };

/**
 * The registry state, typed as `@octokit/webhooks` types it: `hooks` is a plain object, so a
 * literal such as `{ hooks: {}, log }` is a `State`. (The registry itself keeps its handlers
 * privately; this type is for code written against the peer's.)
 */
export interface State extends Options<unknown> {
  eventHandler?: EventHandler<unknown> | undefined;
  hooks: Hooks;
  log: Logger;
}
