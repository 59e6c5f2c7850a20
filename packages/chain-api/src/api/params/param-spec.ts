import { invalidParameter } from '../errors.js';

/** JSON schema fragment, as it appears in the OpenAPI document. */
export type JsonSchema = { [key: string]: unknown };

/**
 * One query or path parameter: its documented schema and the parser that turns the raw string
 * into a typed value or a 400 naming the parameter. The schema only documents; `parse` decides,
 * so clamping (`limit` above the maximum) and precise messages stay in one place.
 */
export interface ParamSpec<T> {
  readonly schema: JsonSchema;
  readonly description?: string;
  readonly required?: boolean;
  /** `raw` is undefined when absent; an empty string counts as absent for optional parameters
   * (booleans read it as true: a bare flag). */
  parse(raw: string | undefined, name: string): T;
}

export type ParsedParams<S extends Record<string, ParamSpec<unknown>>> = {
  [K in keyof S]: ReturnType<S[K]['parse']>;
};

export interface QuerySpec<S extends Record<string, ParamSpec<unknown>>> {
  /** JSON schema of the whole object, for the route's `querystring`/`params` schema. */
  readonly schema: JsonSchema;
  /** Validates and converts a Fastify query/params object. */
  parse(input: unknown): ParsedParams<S>;
}

/**
 * Groups parameter specs into one schema and one parser.
 *
 * @example
 * const query = defineParams({ limit: limitParam({ min: 1, max: 100, fallback: 20 }) });
 * query.parse({ limit: '500' }); // { limit: 100 }
 */
export function defineParams<S extends Record<string, ParamSpec<unknown>>>(specs: S): QuerySpec<S> {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    properties[name] = spec.description
      ? { ...spec.schema, description: spec.description }
      : spec.schema;
    if (spec.required) required.push(name);
  }
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = required;

  // Once, not per request: every request parses its parameters.
  const entries = Object.entries(specs);
  return {
    schema,
    parse(input: unknown): ParsedParams<S> {
      const source = (input ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, spec] of entries) {
        const value = source[name];
        if (Array.isArray(value)) {
          throw invalidParameter(name, 'given more than once; pass a single comma-separated value');
        }
        if (value !== undefined && typeof value !== 'string') {
          throw invalidParameter(name, 'expected a string');
        }
        out[name] = spec.parse(value, name);
      }
      return out as ParsedParams<S>;
    },
  };
}

/** Splits a comma-separated value into trimmed items, rejecting empty items ("a,,b"). */
export function splitList(raw: string, name: string, maxItems: number): string[] {
  const items = raw.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) {
    throw invalidParameter(name, 'empty item in comma-separated list');
  }
  if (items.length > maxItems) {
    throw invalidParameter(name, `at most ${maxItems} values are accepted`);
  }
  return items;
}

/** Quotes user input for an error message, shortened so a huge value can't bloat the answer. */
export function quote(value: string): string {
  const short = value.length > 64 ? `${value.slice(0, 61)}...` : value;
  return JSON.stringify(short);
}
