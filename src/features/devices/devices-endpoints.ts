import type { DeviceRegistry } from '../../realtime/device-registry.js';
import { InvalidCursorError } from '../../realtime/invalid-cursor-error.js';
import type { OutputCachePolicy } from '../cache/output-cache-policy.js';
import type { ResponseCachePolicy } from '../cache/response-caching.js';
import { Errors } from '../../host/errors.js';
import type { ApiDescription } from '../../host/openapi/api-description.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import { Results } from '../../host/pipeline/results.js';
import { toWireReading } from '../../wire/reading.js';
import { READING_SCHEMA } from '../../wire/reading-schema.js';
import { currentTenant } from '../../host/security/tenant-context.js';

interface ListArgs {
  limit: number;
  cursor: string | undefined;
}

/**
 * Dashboards poll the device list: one answer per tenant and page serves every poll for a second
 * (the list holds each device's last reading, so it is never older than that).
 */
export const DEVICES_LIST_POLICY: OutputCachePolicy = {
  name: 'devices-list',
  durationMs: 1000,
  varyByQuery: ['limit', 'cursor'],
};

/** Per-user data: the client may keep it but revalidates every time (ETag → 304 when unchanged). */
const DEVICES_RESPONSE_POLICY: ResponseCachePolicy = { scope: 'private', maxAgeSeconds: 0 };

/** The OpenAPI description of the list (its binder below predates the schema binder and says the same). */
const DEVICES_LIST_API: ApiDescription = {
  group: 'public',
  operationId: 'listDevices',
  summary: "List the caller's devices",
  description:
    "Devices of the caller's tenant ordered by id, with their last reading; a cursor continues after the last item.",
  tags: ['devices'],
  parameters: [
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
    { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'nextCursor of the previous page' },
  ],
  responses: {
    200: {
      description: 'a page of devices',
      schema: {
        type: 'object',
        required: ['items', 'nextCursor'],
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              required: ['deviceId', 'lastSeen', 'last'],
              properties: {
                deviceId: { type: 'string' },
                lastSeen: { type: 'integer', description: 'epoch ms' },
                last: { oneOf: [READING_SCHEMA, { type: 'null' }] },
              },
            },
          },
          nextCursor: { type: ['string', 'null'] },
        },
      },
    },
    400: { description: 'a bad limit or cursor' },
    401: { description: 'no or a bad token' },
  },
};

/**
 * `GET /v1/devices?limit=&cursor=` (contract "Devices (REST)"): the caller's own tenant only.
 * `refresh` (a cluster) brings the tenant's devices up to date from shared state first.
 */
export function mapDeviceEndpoints(
  v1: EndpointGroup,
  registry: DeviceRegistry,
  refresh?: (tenantId: string) => Promise<void>,
): void {
  v1.get<ListArgs>(
    '/devices',
    async ({ http, args }) => {
      // Set by authentication for the whole request; the endpoint requires a signed-in user.
      const tenantId = currentTenant();
      if (tenantId === undefined) throw new Error(`${http.originalPath} ran without a tenant context`);
      await refresh?.(tenantId);
      try {
        const page = registry.list(tenantId, args);
        return Results.json(
          {
            items: page.items.map((i) => ({
              deviceId: i.deviceId,
              lastSeen: i.lastSeen,
              last: i.last ? toWireReading(i.last) : null,
            })),
            nextCursor: page.nextCursor,
          },
          200,
        );
      } catch (err) {
        if (err instanceof InvalidCursorError)
          return Results.problem(Errors.DEVICES_BAD_CURSOR, 'The cursor is not one this API returned.');
        throw err;
      }
    },
    {
      metadata: {
        api: DEVICES_LIST_API,
        outputCache: DEVICES_LIST_POLICY.name,
        responseCache: DEVICES_RESPONSE_POLICY,
      },
      bind: ({ query }) => {
        const rawLimit = query.get('limit');
        const limit = rawLimit === null ? 100 : Number(rawLimit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500 || (rawLimit !== null && !/^\d+$/.test(rawLimit))) {
          return { ok: false, errors: { limit: 'must be an integer from 1 to 500' } };
        }
        const cursor = query.get('cursor') ?? undefined;
        return { ok: true, value: { limit, cursor: cursor === '' ? undefined : cursor } };
      },
    },
  );
}
