import { limitText } from '../../text/limit-text.js';
import { ApiError } from '../errors.js';

/**
 * Readers of JSON body fields for the subscription routes. Every failure is a 422 with a
 * `text/plain` message naming the field, worded like the peer's: shape errors (missing field,
 * wrong JSON type, unknown value) as "Failed to deserialize the JSON body into the target type:
 * ...", checks of the value itself (an address, a URL, a chain) as "Invalid `field`: ...".
 */

const DESERIALIZE = 'Failed to deserialize the JSON body into the target type: ';
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A JSON object body. */
export type Body = Record<string, unknown>;

/** 422 for a body that does not have the expected shape. */
export function shapeError(field: string, problem: string): ApiError {
  return new ApiError('INVALID_BODY', `${DESERIALIZE}\`${field}\`: ${problem}`);
}

/** 422 for a field whose value cannot be used. */
export function invalidField(field: string, problem: string): ApiError {
  return new ApiError('INVALID_BODY', `Invalid \`${field}\`: ${problem}`);
}

/** Input echoed in a message: quoted JSON, cut short. */
export function shown(value: unknown): string {
  return limitText(JSON.stringify(value) ?? String(value), 60);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return `a ${typeof value}`;
}

function wrongType(field: string, value: unknown, expected: string): ApiError {
  return shapeError(field, `invalid type: ${kind(value)}, expected ${expected}`);
}

/** The body as an object (an absent body is an empty one when `optional`). */
export function objectBody(body: unknown, optional = false): Body {
  if (body === undefined && optional) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const got = body === undefined ? 'an empty body' : kind(body);
    throw new ApiError(
      'INVALID_BODY',
      `${DESERIALIZE}invalid type: ${got}, expected a JSON object`,
    );
  }
  return body as Body;
}

/** Throws the peer's "missing field" error when `field` is absent. */
export function requireField(body: Body, field: string): void {
  if (body[field] === undefined) {
    throw new ApiError('INVALID_BODY', `${DESERIALIZE}missing field \`${field}\``);
  }
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** A string field; undefined when absent, null when null and `nullable`. */
export function stringField(
  body: Body,
  field: string,
  opts: { nullable?: boolean; maxLength?: number } = {},
): string | null | undefined {
  const value = body[field];
  if (value === undefined || (value === null && opts.nullable)) return value;
  if (typeof value !== 'string') throw wrongType(field, value, 'a string');
  // PostgreSQL text cannot hold NUL; no field has a use for control characters.
  if (hasControlCharacter(value)) throw invalidField(field, 'contains control characters');
  if (opts.maxLength !== undefined && value.length > opts.maxLength) {
    throw invalidField(field, `longer than ${opts.maxLength} characters`);
  }
  return value;
}

/** One of `allowed`; the error lists them like serde's "unknown variant". */
export function choiceField<T extends string>(
  body: Body,
  field: string,
  allowed: readonly T[],
  opts: { nullable?: boolean } = {},
): T | null | undefined {
  const value = stringField(body, field, opts);
  if (value === undefined || value === null) return value;
  if (!(allowed as readonly string[]).includes(value)) {
    const choices = allowed.map((a) => `\`${a}\``).join(', ');
    throw shapeError(
      field,
      `unknown variant \`${limitText(value, 40)}\`, expected one of ${choices}`,
    );
  }
  return value as T;
}

/** A boolean field; undefined when absent or null. */
export function booleanField(body: Body, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw wrongType(field, value, 'a boolean');
  return value;
}

/** An integer in [min, max]; undefined when absent, null when null. */
export function integerField(
  body: Body,
  field: string,
  min: number,
  max: number,
): number | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw wrongType(field, value, 'an integer');
  }
  if (value < min || value > max) throw invalidField(field, `must be from ${min} to ${max}`);
  return value;
}

/** A lower-cased address. */
export function parseAddress(value: unknown, field: string): string {
  if (typeof value !== 'string') throw wrongType(field, value, 'an address string');
  if (!ADDRESS.test(value)) {
    throw invalidField(field, `${shown(value)} is not an address (0x followed by 40 hex digits)`);
  }
  return value.toLowerCase();
}

/** An address field (lower-cased); undefined when absent, null when null. */
export function addressField(body: Body, field: string): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  return parseAddress(value, field);
}

/**
 * An array of addresses: lower-cased, duplicates dropped (first position kept), at most
 * `maxItems` distinct ones (the body size limit bounds the raw array).
 */
export function addressListField(
  body: Body,
  field: string,
  maxItems: number,
): string[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw wrongType(field, value, 'an array of addresses');
  const seen = new Set<string>();
  value.forEach((item, i) => {
    seen.add(parseAddress(item, `${field}[${i}]`));
  });
  if (seen.size > maxItems) {
    throw invalidField(field, `at most ${maxItems} addresses per webhook, got ${seen.size}`);
  }
  return [...seen];
}

/** An array of integers, or null; undefined when absent. */
export function integerListField(body: Body, field: string): number[] | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  if (!Array.isArray(value)) throw wrongType(field, value, 'an array of integers');
  return value.map((item, i) => {
    if (typeof item !== 'number' || !Number.isSafeInteger(item)) {
      throw wrongType(`${field}[${i}]`, item, 'an integer');
    }
    return item;
  });
}
