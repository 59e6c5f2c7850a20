import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../errors/index.js';
import { type ApiError, invalidParameter } from './errors.js';
import type { ParamSpec } from './params/param-spec.js';

/** A keyset position: the sort key of the last row of a page. */
export type CursorKey = readonly (string | number)[];

/**
 * Opaque, tamper-evident keyset cursors. A cursor is `base64url(JSON key) . base64url(HMAC)`;
 * the HMAC also covers a scope (endpoint + wallet + filters), so a cursor can neither be edited
 * nor replayed against a different query. Pages are keyset ranges, never SQL OFFSET.
 */
export interface CursorCodec {
  encode(scope: string, key: CursorKey): string;
  /** The key inside `token`, or a 400 naming `param` when it is not ours or not for `scope`. */
  decode(scope: string, token: string, param?: string): CursorKey;
  /** The 400 for a cursor that verified but does not fit the endpoint. */
  invalid(param?: string): ApiError;
}

const version = 'c1';
const macLength = 16; // bytes: 128-bit tags are plenty against forgery
const maxTokenLength = 2048;
const tokenPattern = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * @example
 * const cursors = createCursorCodec(secret);
 * const next = cursors.encode('activity|0xabc', ['2025-01-01T00:00:00Z', 1, 42]);
 * cursors.decode('activity|0xabc', next); // ['2025-01-01T00:00:00Z', 1, 42]
 */
export function createCursorCodec(secret: Uint8Array | string): CursorCodec {
  if (secret.length < 16) {
    throw new ConfigError('CURSOR_SECRET', 'cursor secret must be at least 16 bytes');
  }
  const sign = (scope: string, payload: string): Buffer =>
    createHmac('sha256', secret)
      .update(`${version}\n${scope}\n${payload}`)
      .digest()
      .subarray(0, macLength);

  const invalid = (param = 'offset'): ApiError =>
    invalidParameter(
      param,
      'not a cursor returned for this request; pass next_offset from the previous response unchanged',
    );

  return {
    encode(scope, key) {
      const payload = Buffer.from(JSON.stringify(key)).toString('base64url');
      return `${payload}.${sign(scope, payload).toString('base64url')}`;
    },
    invalid,
    decode(scope, token, param = 'offset') {
      const reject = () => invalid(param);
      if (token.length > maxTokenLength || !tokenPattern.test(token)) throw reject();
      const [payload = '', mac = ''] = token.split('.');
      const given = Buffer.from(mac, 'base64url');
      const expected = sign(scope, payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw reject();
      let key: unknown;
      try {
        key = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw reject();
      }
      if (
        !Array.isArray(key) ||
        !key.every((part) => typeof part === 'string' || typeof part === 'number')
      ) {
        throw reject();
      }
      return key as CursorKey;
    },
  };
}

/** The `offset` query parameter: syntax only; the route decodes it with its scope. */
export const cursorParam: ParamSpec<string | undefined> = {
  schema: { type: 'string' },
  description:
    'Pagination cursor: the `next_offset` of the previous page, passed unchanged. Omit for the first page.',
  parse(raw, name) {
    if (raw === undefined || raw === '') return undefined;
    if (raw.length > maxTokenLength || !tokenPattern.test(raw)) {
      throw invalidParameter(
        name,
        'not a cursor returned by this API; pass next_offset from the previous response unchanged',
      );
    }
    return raw;
  },
};
