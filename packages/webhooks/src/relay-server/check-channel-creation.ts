import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RelayChannels } from './relay-channels.js';

/** Why a channel may not be created: the status, body and headers to answer with. */
export interface CreationRefusal {
  status: 401 | 429 | 503;
  error: string;
  headers: Record<string, string>;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Checks a `POST /channels` (or `/new`) before a channel is made: the bearer token when the
 * relay has a `createToken` (compared in constant time), then the client's own channel count,
 * then the relay's. `undefined` when the channel may be created.
 *
 * @example
 * ```ts
 * const refusal = checkChannelCreation(request, owner, channels, settings.createToken);
 * if (refusal) return reply(response, refusal.status, { error: refusal.error }, refusal.headers);
 * ```
 */
export function checkChannelCreation(
  request: IncomingMessage,
  owner: string,
  channels: RelayChannels,
  createToken: string | undefined,
): CreationRefusal | undefined {
  if (createToken !== undefined) {
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(given), digest(createToken))) {
      return {
        status: 401,
        error: 'Creating a channel needs the relay token (Authorization: Bearer <token>)',
        headers: { 'www-authenticate': 'Bearer' },
      };
    }
  }
  const refusal = channels.refusal(owner);
  if (refusal === 'client') {
    return {
      status: 429,
      error: 'Too many open channels for this client; delete one or wait for it to expire',
      headers: { 'retry-after': '60' },
    };
  }
  if (refusal === 'total') {
    return { status: 503, error: 'Too many channels', headers: { 'retry-after': '60' } };
  }
  return undefined;
}
