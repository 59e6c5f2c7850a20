import { InvalidRelayMessageError } from '../errors.js';
import type { WebhooksLike } from '../middleware/types.js';
import type { RelayMessage } from './relay-message.js';

/**
 * Hands one relay-channel message to `verifyAndReceive`: `id` from `x-request-id` (else
 * `x-provider-delivery`), `name` from `x-provider-event`, `signature` from `x-hub-signature-256`
 * when forwarded, else `x-hub-signature`, and `payload` = the JSON text of `body` (a string
 * `body` is taken as the exact text). Accepts the message as an object or its JSON text.
 * Rejects with `InvalidRelayMessageError` for malformed messages, and as `verifyAndReceive`
 * does for bad signatures and handler failures.
 *
 * @example
 * ```ts
 * source.onmessage = (event) => {
 *   receiveRelayMessage(webhooks, event.data).catch((error) => console.error(error.message));
 * };
 * ```
 */
export async function receiveRelayMessage(
  webhooks: WebhooksLike,
  message: RelayMessage | string,
): Promise<void> {
  let parsed: unknown = message;
  if (typeof message === 'string') {
    try {
      parsed = JSON.parse(message);
    } catch (cause) {
      throw new InvalidRelayMessageError({ details: 'message is not JSON', cause });
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidRelayMessageError({ details: 'message must be a JSON object' });
  }
  const relayed = parsed as RelayMessage;
  const name = relayed['x-provider-event'];
  if (typeof name !== 'string' || name === '') {
    throw new InvalidRelayMessageError({ details: '"x-provider-event" missing' });
  }
  const id = relayed['x-request-id'] ?? relayed['x-provider-delivery'];
  if (typeof id !== 'string' || id === '') {
    throw new InvalidRelayMessageError({ details: '"x-request-id" missing' });
  }
  const { body } = relayed;
  if (body === undefined || body === null) {
    throw new InvalidRelayMessageError({ details: '"body" missing' });
  }
  const signature = relayed['x-hub-signature-256'] ?? relayed['x-hub-signature'];
  return webhooks.verifyAndReceive({
    id,
    name,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    signature: typeof signature === 'string' ? signature : '',
  });
}
