import { invalidParameter } from '../errors.js';
import { type ParamSpec, quote, splitList } from './param-spec.js';

/**
 * A boolean query parameter: `true`/`false` (also `1`/`0`), case-insensitive. A flag present
 * without a value (`?exclude_spam_tokens` or `?exclude_spam_tokens=`) means true, as the peer's
 * clients send it; only an absent parameter takes the fallback.
 */
export function booleanParam(fallback: boolean, description: string): ParamSpec<boolean> {
  return {
    schema: { type: 'boolean', default: fallback },
    description,
    parse(raw, name) {
      if (raw === undefined) return fallback;
      const value = raw.trim().toLowerCase();
      if (value === '' || value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      throw invalidParameter(name, `${quote(raw)} is not a boolean (true or false)`);
    },
  };
}

/** One value out of a fixed set. */
export function enumParam<const T extends string>(
  values: readonly T[],
  description: string,
): ParamSpec<T | undefined> {
  return {
    schema: { type: 'string', enum: [...values] },
    description,
    parse(raw, name) {
      if (raw === undefined || raw === '') return undefined;
      const value = raw.toLowerCase();
      if (!(values as readonly string[]).includes(value)) {
        throw invalidParameter(name, `${quote(raw)} is not one of ${values.join(', ')}`);
      }
      return value as T;
    },
  };
}

/** A comma-separated list of values out of a fixed set; duplicates collapse. */
export function enumListParam<const T extends string>(
  values: readonly T[],
  description: string,
  style: 'array' | 'string' = 'array',
): ParamSpec<T[] | undefined> {
  const schema =
    style === 'array'
      ? { type: 'array', items: { type: 'string', enum: [...values] } }
      : { type: 'string' };
  return {
    schema,
    description,
    parse(raw, name) {
      if (raw === undefined || raw === '') return undefined;
      const items = splitList(raw, name, values.length * 4).map((item) => {
        const value = item.toLowerCase();
        if (!(values as readonly string[]).includes(value)) {
          throw invalidParameter(name, `${quote(item)} is not one of ${values.join(', ')}`);
        }
        return value as T;
      });
      return [...new Set(items)];
    },
  };
}
