// @sluice/webhooks: receive, verify and dispatch code-hosting webhooks.
export {
  BodyAlreadyParsedError,
  BodyBudgetExceededError,
  BodyTimeoutError,
  EmptyBodyError,
  errorCatalogue,
  InvalidArgumentError,
  InvalidEventNameError,
  InvalidJsonError,
  InvalidRelayMessageError,
  InvalidUrlError,
  MissingHeadersError,
  MissingSecretError,
  PayloadTooLargeError,
  RequestBodyError,
  SignatureVerificationError,
  TooManyRequestsError,
  UnknownRouteError,
  UnsupportedContentTypeError,
  UnsupportedEventNameError,
  WebhooksError,
  type WebhooksErrorCode,
} from './errors.js';
export { createEventHandler } from './event-handler/create-event-handler.js';
export {
  type ValidateEventNameOptions,
  validateEventName,
} from './event-handler/validate-event-name.js';
export { emitterEventNames } from './event-names/emitter-event-names.js';
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
export type { WebhooksLike } from './middleware/types.js';
export { createWebMiddleware, type WebMiddleware } from './middleware/web/create-web-middleware.js';
// Every public type, under the names @octokit/webhooks uses (also the `/types` entry).
export type * from './public-types.js';
export {
  createRelayClient,
  type RelayClient,
  type RelayClientOptions,
} from './relay/create-relay-client.js';
export { receiveRelayMessage } from './relay/receive-relay-message.js';
export { Webhooks } from './webhooks.js';
