import { invalidParameter } from '../errors.js';
import { type ParamSpec, quote, splitList } from './param-spec.js';

const integerPattern = /^\d+$/;

/**
 * `limit`: an integer of at least `min`; values above `max` are reduced to `max` (the peer's
 * rule), absent means `fallback`.
 */
export function limitParam(opts: {
  min: number;
  max: number;
  fallback: number;
}): ParamSpec<number> {
  return {
    schema: {
      type: 'integer',
      minimum: opts.min,
      maximum: opts.max,
      default: opts.fallback,
    },
    description: `Page size, ${opts.min} to ${opts.max} (default ${opts.fallback}); larger values are reduced to ${opts.max}.`,
    parse(raw, name) {
      if (raw === undefined || raw === '') return opts.fallback;
      if (!integerPattern.test(raw)) {
        throw invalidParameter(name, `${quote(raw)} is not a positive integer`);
      }
      // Digits only, so a huge value is simply "above the maximum" and clamps.
      const value = raw.length > 15 ? Number.MAX_SAFE_INTEGER : Number(raw);
      if (value < opts.min) throw invalidParameter(name, `must be at least ${opts.min}`);
      return Math.min(value, opts.max);
    },
  };
}

/** Longest look-back accepted by `historical_prices`: ten years, in hours. */
export const maxHistoricalOffsetHours = 87_600;

/** `historical_prices`: 1 to 3 whole numbers of hours in the past. */
export const historicalPricesParam: ParamSpec<number[] | undefined> = {
  schema: { type: 'string', pattern: '^\\d+(,\\d+){0,2}$' },
  description:
    'One integer or a comma-separated list of up to 3 integers, each a number of hours in the past (e.g. `720,168,24`). Each balance then carries `historical_prices: [{offset_hours, price_usd}]`.',
  parse(raw, name) {
    if (raw === undefined || raw === '') return undefined;
    const items = splitList(raw, name, Number.POSITIVE_INFINITY);
    if (items.length > 3) throw invalidParameter(name, 'at most 3 hour offsets are accepted');
    return items.map((item) => {
      if (!integerPattern.test(item)) {
        throw invalidParameter(name, `${quote(item)} is not a whole number of hours`);
      }
      const hours = item.length > 15 ? Number.POSITIVE_INFINITY : Number(item);
      if (hours < 1 || hours > maxHistoricalOffsetHours) {
        throw invalidParameter(
          name,
          `offsets must be between 1 and ${maxHistoricalOffsetHours} hours`,
        );
      }
      return hours;
    });
  },
};
