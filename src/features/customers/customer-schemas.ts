import { ID_PATTERN } from '../../host/ids.js';
import type { ApiParameter, JsonSchema } from '../../host/openapi/api-description.js';

/**
 * Schema parts every context's API shares. Every string has a maxLength, so an over-long value is a
 * 400 naming it; the patterns are linear (no nested repetition), since they also run on a value that
 * is already too long.
 */
export const ID: JsonSchema = { type: 'string', maxLength: 64, pattern: ID_PATTERN.source };

/** One line of text, not blank: no control characters, something other than spaces. */
export function line(maxLength: number, description?: string): JsonSchema {
  return {
    type: 'string',
    minLength: 1,
    maxLength,
    pattern: '^ *[^\\s\\x00-\\x1f\\x7f][^\\x00-\\x1f\\x7f]*$',
    ...(description ? { description } : {}),
  };
}

/** An optional line: absent or null when there is none. */
export function optionalLine(maxLength: number, description?: string): JsonSchema {
  return { ...line(maxLength, description), type: ['string', 'null'] };
}

export const CUSTOMER_ID: ApiParameter = {
  name: 'customerId',
  in: 'path',
  required: true,
  schema: ID,
  description: 'the customer, by the id orders refer to it with; the same id in another context is another aggregate',
};

/** Cursors are a list's own number of its last item, in base64url: 20 characters at most. */
export const CURSOR_MAX_LENGTH = 64;

export const PAGE_PARAMETERS: readonly ApiParameter[] = [
  {
    name: 'cursor',
    in: 'query',
    schema: { type: 'string', maxLength: CURSOR_MAX_LENGTH },
    description: 'nextCursor of the previous page',
  },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
];

export function pageOf(item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['items', 'nextCursor'],
    properties: {
      items: { type: 'array', items: item },
      nextCursor: { type: ['string', 'null'], maxLength: CURSOR_MAX_LENGTH, description: 'null on the last page' },
    },
  };
}

export const READ_ERRORS = {
  400: { description: 'a bad customer id or parameter; errors names each' },
  401: { description: 'no or a bad token' },
} as const;

export const WRITE_ERRORS = {
  400: { description: 'a bad id, or the body is not the shape above; errors names each value' },
  401: { description: 'no or a bad token' },
  403: { description: 'the token lacks the role admin or buyer' },
} as const;

/** An instant the database wrote, as ISO 8601 UTC with milliseconds (both engines the same). */
export const INSTANT: JsonSchema = { type: 'string', maxLength: 24, description: 'ISO 8601, UTC' };

/** SQL for that instant: engine-neutral text, so no driver's date parsing is involved. */
export function instantSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
