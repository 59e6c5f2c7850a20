import { UsersError } from '../errors.js';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * JSON body parser for Fastify that refuses `__proto__`, `constructor` and `prototype` keys at
 * any depth with a clear 400, instead of a generic "not valid JSON".
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new UsersError('USERS_INVALID_JSON', 'Body is empty');
  let forbidden: string | undefined;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v: unknown) => {
      if (FORBIDDEN.has(key)) forbidden ??= key;
      return v;
    });
  } catch (err) {
    throw new UsersError(
      'USERS_INVALID_JSON',
      `Body is not valid JSON: ${err instanceof Error ? err.message : 'parse error'}`,
    );
  }
  if (forbidden) {
    throw new UsersError('USERS_FORBIDDEN_KEY', `Body contains the forbidden key "${forbidden}"`);
  }
  return value;
}
