import type { DeviceRegistry } from '../hub/device-registry.js';
import { InvalidCursorError } from '../hub/invalid-cursor-error.js';
import { Errors } from '../host/errors.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { Results } from '../host/pipeline/results.js';
import { toWireReading } from '../protocol/reading.js';
import { currentTenant } from '../security/tenant-context.js';

interface ListArgs {
  limit: number;
  cursor: string | undefined;
}

/**
 * `GET /v1/devices?limit=&cursor=` (contract "Devices (REST)"): the caller's own tenant only.
 * `refresh` (a cluster) brings the tenant's devices up to date from shared state first.
 */
export function mapDeviceEndpoints(v1: EndpointGroup, registry: DeviceRegistry, refresh?: (tenantId: string) => Promise<void>): void {
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
            items: page.items.map((i) => ({ deviceId: i.deviceId, lastSeen: i.lastSeen, last: i.last ? toWireReading(i.last) : null })),
            nextCursor: page.nextCursor,
          },
          200,
          { 'cache-control': 'private, no-store' },
        );
      } catch (err) {
        if (err instanceof InvalidCursorError) return Results.problem(Errors.DEVICES_BAD_CURSOR, 'The cursor is not one this API returned.');
        throw err;
      }
    },
    {
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
