import { InvalidArgumentError, MissingSecretError } from './errors.js';
import { bindEventHandler, type EventHandler } from './event-handler/bind-event-handler.js';
import { createEventHandlerState } from './event-handler/create-event-handler-state.js';
import { runErrorHandlers } from './event-handler/run-error-handlers.js';
import type { Logger } from './log.js';
import { sign } from './methods/sign.js';
import { verify } from './methods/verify.js';
import type { EmitterWebhookEventWithStringPayloadAndSignature, WebhooksOptions } from './types.js';
import { verifyAndReceive } from './verify-and-receive.js';

/**
 * Signs, verifies and dispatches deliveries for one secret.
 *
 * @example
 * ```ts
 * import { Webhooks } from '@sluice/webhooks';
 *
 * const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET! });
 * webhooks.on('issues.opened', async ({ id, payload }) => {
 *   console.log(id, payload.issue.title);
 * });
 * webhooks.onError((error) => console.error(error.event.id, error.message));
 * await webhooks.verifyAndReceive({ id, name, payload: rawBody, signature });
 * ```
 */
export class Webhooks<TTransformed = unknown> {
  /** Signs a payload with the instance secret: `sha256=<hex>`. */
  readonly sign: (payload: string | Uint8Array) => Promise<string>;
  /** Verifies a signature against the instance secret only (not `additionalSecrets`). */
  readonly verify: (payload: string | Uint8Array, signature: string) => Promise<boolean>;
  readonly on: EventHandler<TTransformed>['on'];
  readonly onAny: EventHandler<TTransformed>['onAny'];
  readonly onError: EventHandler<TTransformed>['onError'];
  readonly removeListener: EventHandler<TTransformed>['removeListener'];
  readonly receive: EventHandler<TTransformed>['receive'];
  /** Verifies (secret, then `additionalSecrets`), parses and dispatches a delivery. */
  readonly verifyAndReceive: (
    delivery: EmitterWebhookEventWithStringPayloadAndSignature,
  ) => Promise<void>;
  /** The logger in use (defaults filled in); middleware created for this instance shares it. */
  readonly log: Logger;

  constructor(options: WebhooksOptions<TTransformed>) {
    if (options === null || typeof options !== 'object') throw new MissingSecretError();
    const { secret, additionalSecrets } = options;
    if (typeof secret !== 'string' || secret === '') throw new MissingSecretError();
    if (
      additionalSecrets !== undefined &&
      (!Array.isArray(additionalSecrets) ||
        !additionalSecrets.every((s) => typeof s === 'string' && s !== ''))
    ) {
      throw new InvalidArgumentError(
        'new Webhooks(): options.additionalSecrets must be an array of non-empty strings',
      );
    }
    const state = createEventHandlerState(options);
    const eventHandler = bindEventHandler<TTransformed>(state);
    const verifyState = {
      secret,
      additionalSecrets: additionalSecrets?.slice(),
      eventHandler: eventHandler as EventHandler<unknown>,
      // Failed verifications reach the same onError handlers as handler failures.
      emitError: (error: Parameters<typeof runErrorHandlers>[1]) => runErrorHandlers(state, error),
    };

    this.log = state.log;
    this.sign = (payload) => sign(secret, payload);
    this.verify = (payload, signature) => verify(secret, payload, signature);
    this.on = eventHandler.on;
    this.onAny = eventHandler.onAny;
    this.onError = eventHandler.onError;
    this.removeListener = eventHandler.removeListener;
    this.receive = eventHandler.receive;
    this.verifyAndReceive = (delivery) => verifyAndReceive(verifyState, delivery);
  }
}
