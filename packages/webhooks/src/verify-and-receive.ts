import { InvalidArgumentError, InvalidJsonError, SignatureVerificationError } from './errors.js';
import type { EventHandler } from './event-handler/create-event-handler.js';
import { verifyWithFallback } from './methods/verify-with-fallback.js';
import type {
  EmitterWebhookEventWithStringPayloadAndSignature,
  ErrorHandlerFunction,
  WebhookError,
  WebhookEventHandlerError,
} from './types.js';

export interface VerifyAndReceiveState {
  secret: string;
  additionalSecrets: ReadonlyArray<string> | undefined;
  eventHandler: EventHandler<unknown>;
  /** Runs the `onError` handlers for a failed verification. */
  emitError: ErrorHandlerFunction;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/**
 * Verifies a delivery's signature over its exact payload (text or bytes), parses it and hands
 * it to `receive`. A signature that does not verify rejects with an `AggregateError` holding a
 * `SignatureVerificationError` (status 400) and emits it to `onError` handlers; payloads that are
 * not a JSON object reject with an `InvalidJsonError` (status 400).
 *
 * @example
 * ```ts
 * await verifyAndReceive(state, { id, name, payload: rawBody, signature });
 * ```
 */
export async function verifyAndReceive(
  state: VerifyAndReceiveState,
  delivery: EmitterWebhookEventWithStringPayloadAndSignature,
): Promise<void> {
  if (delivery === null || typeof delivery !== 'object') {
    throw new InvalidArgumentError('verifyAndReceive(): { id, name, payload, signature } required');
  }
  const { id, name, payload, signature } = delivery;
  if (typeof name !== 'string' || name === '') {
    throw new InvalidArgumentError('verifyAndReceive(): name required');
  }
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw new InvalidArgumentError('verifyAndReceive(): payload must be a string or a Uint8Array');
  }

  const matches =
    typeof signature === 'string' &&
    signature !== '' &&
    (await verifyWithFallback(state.secret, payload, signature, state.additionalSecrets).catch(
      () => false,
    ));
  if (!matches) {
    // The event keeps id, name and payload for diagnosis, never the signature.
    const event = {
      id,
      name,
      payload: typeof payload === 'string' ? payload : lenientUtf8.decode(payload),
    };
    const failure: WebhookError = new SignatureVerificationError();
    failure.event = event;
    const error = new AggregateError([failure], failure.message) as WebhookEventHandlerError;
    error.event = event;
    state.emitError(error);
    throw error;
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof payload === 'string' ? payload : strictUtf8.decode(payload));
  } catch (cause) {
    const details =
      cause instanceof SyntaxError ? cause.message : 'payload is not valid UTF-8 text';
    const failure = new InvalidJsonError({ details, cause });
    throw new AggregateError([failure], failure.message);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const failure = new InvalidJsonError({ details: 'payload must be a JSON object' });
    throw new AggregateError([failure], failure.message);
  }
  return state.eventHandler.receive({ id, name, payload: parsed });
}
