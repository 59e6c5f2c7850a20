import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RelayMessage } from '../relay/relay-message.js';

// Provider headers a receiver may need; never credentials, cookies or hop-by-hop headers.
const forwarded = /^(x-provider-|x-hub-signature|content-type$|user-agent$)/;

export type BuiltRelayMessage =
  | { ok: true; message: string; event: string; deliveryId: string }
  | { ok: false; reason: string };

/**
 * Turns one provider delivery into the spec's relay message: `x-request-id` (the delivery id),
 * `x-provider-event`, `x-hub-signature` and `body`, plus the other provider headers. `body` is
 * the parsed JSON when re-serializing it gives back the exact bytes that were signed, otherwise
 * the exact text (which `receiveRelayMessage` verifies as is). `x-hub-signature` carries the
 * SHA-256 signature when the provider sent one, since that is the one `verify` checks.
 *
 * @example
 * ```ts
 * const built = buildRelayMessage(req.headers, bodyText);
 * if (built.ok) channels.publish(channel, built);
 * ```
 */
export function buildRelayMessage(headers: IncomingHttpHeaders, text: string): BuiltRelayMessage {
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' && forwarded.test(name)) picked[name] = value;
  }
  const event = picked['x-provider-event'];
  if (event === undefined || event === '') {
    return { ok: false, reason: 'X-Provider-Event header missing' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'Body is not JSON' };
  }
  const deliveryId = picked['x-provider-delivery'] || randomUUID();
  const signature = picked['x-hub-signature-256'] ?? picked['x-hub-signature'];
  const message: RelayMessage = {
    ...picked,
    'x-request-id': deliveryId,
    'x-provider-event': event,
    ...(signature === undefined ? {} : { 'x-hub-signature': signature }),
    body: JSON.stringify(parsed) === text ? parsed : text,
    timestamp: Date.now(),
  };
  return { ok: true, message: JSON.stringify(message), event, deliveryId };
}
