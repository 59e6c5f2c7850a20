import { describe, expect, it } from 'vitest';
import { UsersError } from './errors.js';
import { parseId, parseNewUser, parsePage, parseUserUpdate } from './user-input.js';

function errorOf(fn: () => unknown): UsersError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsersError) return err;
    throw err;
  }
  throw new Error('expected a UsersError');
}

describe('parseNewUser', () => {
  it('trims text and accepts numeric or digit-string ids', () => {
    expect(parseNewUser({ id: 3, name: ' Ada ', pro: '\tmath ' })).toEqual({
      id: 3,
      name: 'Ada',
      pro: 'math',
    });
    expect(parseNewUser({ id: '42', name: 'a', pro: 'b' }).id).toBe(42);
  });

  it('counts length in code points, not UTF-16 units', () => {
    expect(parseNewUser({ id: 1, name: '😀'.repeat(200), pro: 'p' }).name).toHaveLength(400);
    const err = errorOf(() => parseNewUser({ id: 1, name: '😀'.repeat(201), pro: 'p' }));
    expect(err.fields?.name).toBe('name must be at most 200 characters (got 201)');
  });

  it('reports every invalid field at once', () => {
    const err = errorOf(() => parseNewUser({ id: 'x', name: '', pro: 5, role: 'admin' }));
    expect(err.code).toBe('USERS_VALIDATION');
    expect(err.statusCode).toBe(400);
    expect(Object.keys(err.fields ?? {})).toEqual(['id', 'name', 'pro', 'role']);
  });

  it('rejects forbidden keys before anything else', () => {
    const body = JSON.parse('{"__proto__": {"x": 1}, "id": 1}') as unknown;
    expect(errorOf(() => parseNewUser(body)).code).toBe('USERS_FORBIDDEN_KEY');
    expect(errorOf(() => parseNewUser({ constructor: 'x' })).code).toBe('USERS_FORBIDDEN_KEY');
  });

  it.each([null, [], 'text', 7])('rejects a non-object body %j', (body) => {
    expect(errorOf(() => parseNewUser(body)).code).toBe('USERS_VALIDATION');
  });
});

describe('parseUserUpdate', () => {
  it('allows the path id in the body and refuses a different one', () => {
    expect(parseUserUpdate({ id: 5, name: 'a', pro: 'b' }, 5)).toEqual({ name: 'a', pro: 'b' });
    expect(parseUserUpdate({ id: '5', name: 'a', pro: 'b' }, 5)).toEqual({ name: 'a', pro: 'b' });
    expect(errorOf(() => parseUserUpdate({ id: 6, name: 'a', pro: 'b' }, 5)).code).toBe(
      'USERS_ID_MISMATCH',
    );
  });
});

describe('parseId', () => {
  it.each(['1', '9007199254740991'])('accepts %s', (value) => {
    expect(parseId(value)).toBe(Number(value));
  });
  it.each(['0', '-1', '1.0', '1e3', ' 1', '9007199254740992', '', 'abc', '0x1'])(
    'rejects %j with 400',
    (value) => {
      const err = errorOf(() => parseId(value));
      expect(err.code).toBe('USERS_INVALID_ID');
      expect(err.statusCode).toBe(400);
    },
  );
});

describe('parsePage', () => {
  it('defaults to limit 100, offset 0 and bounds the limit at 1000', () => {
    expect(parsePage({})).toEqual({ limit: 100, offset: 0 });
    expect(parsePage({ limit: '1000', offset: '5' })).toEqual({ limit: 1000, offset: 5 });
    expect(errorOf(() => parsePage({ limit: '1001' })).fields).toEqual({
      limit: 'must be an integer from 1 to 1000',
    });
  });
});
