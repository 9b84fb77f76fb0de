import { ID_PATTERN } from '../../host/ids.js';
import type { ApiDescription, ApiParameter } from '../../host/openapi/api-description.js';
import { READING_SCHEMA } from '../../wire/reading-schema.js';

/** OpenAPI descriptions of the history endpoints (contract v2 "History"); their binders are in history-params.ts. */
const DEVICE_ID: ApiParameter = {
  name: 'deviceId',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: ID_PATTERN.source },
};
const TIME = (name: string, description: string): ApiParameter => ({
  name,
  in: 'query',
  schema: { type: 'string' },
  description: `${description}: epoch ms or ISO 8601`,
});
const ERRORS = {
  400: { description: 'a bad parameter, named in errors' },
  401: { description: 'no or a bad token' },
  404: { description: "no such device in the caller's tenant (HUB_ERR_DEVICES_NOT_FOUND)" },
};

export const READINGS_API: ApiDescription = {
  group: 'public',
  operationId: 'listReadings',
  summary: "A device's stored readings",
  description:
    'Pages of stored readings by seq; the cursor continues after the last item, with no repeat and no skip while readings arrive.',
  tags: ['history'],
  parameters: [
    DEVICE_ID,
    TIME('from', 'earliest ts, inclusive'),
    TIME('to', 'latest ts, exclusive'),
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
    {
      name: 'cursor',
      in: 'query',
      schema: { type: 'string' },
      description: 'nextCursor of the previous page (same order)',
    },
    { name: 'order', in: 'query', schema: { type: 'string', enum: ['desc', 'asc'], default: 'desc' } },
  ],
  responses: {
    200: {
      description: 'a page of readings',
      schema: {
        type: 'object',
        required: ['items', 'nextCursor'],
        properties: { items: { type: 'array', items: READING_SCHEMA }, nextCursor: { type: ['string', 'null'] } },
      },
    },
    ...ERRORS,
  },
};

export const SERIES_API: ApiDescription = {
  group: 'public',
  operationId: 'getSeries',
  summary: "A device's readings aggregated per time bucket",
  description: 'count, and min/max/avg of each numeric field, per bucket (t = bucket start), ascending.',
  tags: ['history'],
  parameters: [
    DEVICE_ID,
    TIME('from', 'start'),
    TIME('to', 'end'),
    { name: 'bucket', in: 'query', schema: { type: 'string' }, description: '1s … 1d' },
  ],
  responses: {
    200: {
      description: 'the buckets',
      schema: {
        type: 'object',
        required: ['bucketMs', 'points'],
        properties: {
          bucketMs: { type: 'integer' },
          points: {
            type: 'array',
            items: {
              type: 'object',
              required: ['t', 'count', 'fields'],
              properties: {
                t: { type: 'integer' },
                count: { type: 'integer' },
                fields: {
                  type: 'object',
                  additionalProperties: {
                    type: 'object',
                    properties: { min: { type: 'number' }, max: { type: 'number' }, avg: { type: 'number' } },
                  },
                },
              },
            },
          },
        },
      },
    },
    ...ERRORS,
  },
};
