import type { JsonSchema } from '../params/param-spec.js';

/** Response schemas shared by the routes. They drive both serialization and /openapi.json. */

export const warningSchema: JsonSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', example: 'UNSUPPORTED_CHAIN_IDS' },
    message: { type: 'string' },
    chain_ids: { type: 'array', items: { type: 'integer' } },
    docs_url: { type: 'string' },
  },
};

export const warningsSchema: JsonSchema = {
  type: 'array',
  items: warningSchema,
  description: 'Non-fatal issues, e.g. unsupported chain ids; present only when one applies.',
};

export const nextOffsetSchema: JsonSchema = {
  type: 'string',
  description: 'Cursor for the next page (pass as `offset`); absent on the last page.',
};

/** Error bodies, documented per status in each route. */
export const gatewayErrorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' } },
};
export const messageErrorSchema: JsonSchema = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
};
export const textErrorSchema: JsonSchema = { type: 'string' };
export const detailErrorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'code'],
      properties: { message: { type: 'string' }, code: { type: 'string' } },
    },
  },
};

const json = (schema: JsonSchema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const text = (description: string) => ({
  description,
  content: { 'text/plain': { schema: textErrorSchema } },
});

/** The documented error responses of an endpoint, in its error format. */
export function errorResponses(format: 'text' | 'message' | 'error' | 'detail', with503: boolean) {
  const body = (description: string) =>
    format === 'text'
      ? text(description)
      : json(
          format === 'message'
            ? messageErrorSchema
            : format === 'detail'
              ? detailErrorSchema
              : gatewayErrorSchema,
          description,
        );
  return {
    400: body('Invalid address or query parameter; the message names the parameter.'),
    401: json(gatewayErrorSchema, 'Missing or invalid API key.'),
    402: json(
      gatewayErrorSchema,
      "The request would pass the key's compute-unit quota for its period; see the Retry-After header.",
    ),
    429: json(gatewayErrorSchema, 'Rate limit exceeded; see the Retry-After header.'),
    500: body('Internal error.'),
    ...(with503
      ? { 503: body("The requested chain's index is not ready yet; retry shortly.") }
      : {}),
  };
}
