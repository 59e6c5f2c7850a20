// @sluice/webhooks: receive, verify and dispatch code-hosting webhooks.
export {
  BodyAlreadyParsedError,
  EmptyBodyError,
  errorCatalogue,
  InvalidArgumentError,
  InvalidEventNameError,
  InvalidJsonError,
  InvalidRelayMessageError,
  InvalidUrlError,
  MissingHeadersError,
  PayloadTooLargeError,
  RequestBodyError,
  SignatureVerificationError,
  UnknownRouteError,
  UnsupportedContentTypeError,
  WebhooksError,
  type WebhooksErrorCode,
} from './errors.js';
export type { EventHandler } from './event-handler/bind-event-handler.js';
export { createEventHandler } from './event-handler/create-event-handler.js';
export {
  type ValidateEventNameOptions,
  validateEventName,
} from './event-handler/validate-event-name.js';
export { emitterEventNames } from './event-names/emitter-event-names.js';
export type {
  EmitterEventNames,
  EmitterWebhookEventName,
  WebhookEventAction,
  WebhookEventName,
  WebhookEventNameWithAction,
} from './event-names/event-name-types.js';
export { isKnownEventName } from './event-names/is-known-event-name.js';
export { createLogger, type Logger } from './log.js';
export {
  createNodeMiddleware,
  type NodeMiddleware,
} from './middleware/node/create-node-middleware.js';
export {
  DEFAULT_MAX_PAYLOAD_BYTES,
  DEFAULT_PATH,
  DEFAULT_TIMEOUT_MS,
} from './middleware/resolve-middleware-options.js';
export type { MiddlewareOptions, WebhooksLike } from './middleware/types.js';
export { createWebMiddleware, type WebMiddleware } from './middleware/web/create-web-middleware.js';
export type * from './payloads/entities.js';
export type {
  CommonPayloadFields,
  EventPayloadFields,
  WebhookEventPayload,
} from './payloads/event-payloads.js';
export {
  createRelayClient,
  type RelayClient,
  type RelayClientOptions,
} from './relay/create-relay-client.js';
export { receiveRelayMessage } from './relay/receive-relay-message.js';
export type { RelayMessage } from './relay/relay-message.js';
export type {
  AnyHandlerFunction,
  EmitterWebhookEvent,
  EmitterWebhookEventWithStringPayloadAndSignature,
  ErrorHandlerFunction,
  EventHandlerOptions,
  HandlerFunction,
  ReceivedEvent,
  TransformMethod,
  UnverifiedWebhookEvent,
  WebhookError,
  WebhookEventHandlerError,
  WebhooksOptions,
} from './types.js';
export { Webhooks } from './webhooks.js';
