import { InvalidArgumentError, InvalidJsonError, SignatureVerificationError } from './errors.js';
import { checkDeliveryEventName } from './event-handler/check-delivery-event-name.js';
import type { EventHandler } from './event-handler/create-event-handler.js';
import { checkSignatureWithFallback } from './methods/check-signature.js';
import { getDefaultHmacBackend } from './methods/default-hmac-backend.js';
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
 * not a JSON object reject with an `InvalidJsonError` (status 400). An event name that is
 * reserved (`*`, `error`) or not an event name's form rejects with an `UnsupportedEventNameError`
 * (status 400) before the signature is checked and before any handler. On node:crypto the check
 * runs synchronously, so a delivery costs no promise before its handlers start.
 *
 * @example
 * ```ts
 * await verifyAndReceive(state, { id, name, payload: rawBody, signature });
 * ```
 */
export function verifyAndReceive(
  state: VerifyAndReceiveState,
  delivery: EmitterWebhookEventWithStringPayloadAndSignature,
): Promise<void> {
  try {
    if (delivery === null || typeof delivery !== 'object') {
      throw new InvalidArgumentError(
        'verifyAndReceive(): { id, name, payload, signature } required',
      );
    }
    const { id, name, payload, signature } = delivery;
    if (typeof name !== 'string' || name === '') {
      throw new InvalidArgumentError('verifyAndReceive(): name required');
    }
    if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
      throw new InvalidArgumentError(
        'verifyAndReceive(): payload must be a string or a Uint8Array',
      );
    }
    // A name from the wire that could address onAny()/onError() or `<event>.<action>` handlers
    // is refused before anything runs (no onError either: they are handlers too).
    const badName = checkDeliveryEventName(name);
    if (badName !== undefined)
      return Promise.reject(new AggregateError([badName], badName.message));
    const matches = signatureMatches(state, payload, signature);
    if (typeof matches === 'boolean') return receiveVerified(state, id, name, payload, matches);
    return matches.then((ok) => receiveVerified(state, id, name, payload, ok));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Any failure to check (a missing argument, an empty payload, a backend error) counts as no match. */
function signatureMatches(
  state: VerifyAndReceiveState,
  payload: string | Uint8Array,
  signature: unknown,
): boolean | Promise<boolean> {
  if (typeof signature !== 'string' || signature === '' || payload.length === 0) return false;
  try {
    const matches = checkSignatureWithFallback(
      getDefaultHmacBackend(),
      state.secret,
      payload,
      signature,
      state.additionalSecrets,
    );
    return typeof matches === 'boolean' ? matches : matches.catch(() => false);
  } catch {
    return false;
  }
}

function receiveVerified(
  state: VerifyAndReceiveState,
  id: string,
  name: string,
  payload: string | Uint8Array,
  matches: boolean,
): Promise<void> {
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
    return Promise.reject(error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof payload === 'string' ? payload : strictUtf8.decode(payload));
  } catch (cause) {
    const details =
      cause instanceof SyntaxError ? cause.message : 'payload is not valid UTF-8 text';
    const failure = new InvalidJsonError({ details, cause });
    return Promise.reject(new AggregateError([failure], failure.message));
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const failure = new InvalidJsonError({ details: 'payload must be a JSON object' });
    return Promise.reject(new AggregateError([failure], failure.message));
  }
  return state.eventHandler.receive({ id, name, payload: parsed });
}
