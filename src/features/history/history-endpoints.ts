import type { Database } from '../storage/database.js';
import { Errors } from '../../host/errors.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import { Results } from '../../host/pipeline/results.js';
import { bindReadings, bindSeries, encodeCursor, type ReadingsArgs, type SeriesArgs } from './history-params.js';
import { READINGS_API, SERIES_API } from './history-api.js';
import { deviceExists, readingsPage, series } from './history-queries.js';
import { toWireReading } from '../../wire/reading.js';
import { currentTenant } from '../../host/security/tenant-context.js';
import { systemClock } from '../../host/clock.js';

const NO_STORE = { 'cache-control': 'private, no-store' };

function tenantOf(path: string): string {
  // Set by authentication for the whole request; these endpoints require a signed-in user.
  const tenantId = currentTenant();
  if (tenantId === undefined) throw new Error(`${path} ran without a tenant context`);
  return tenantId;
}

const notFound = (deviceId: string) =>
  Results.problem(Errors.DEVICES_NOT_FOUND, `No device '${deviceId}' in your tenant.`);

/**
 * History (contract v2 "History"): `GET /v1/devices/{deviceId}/readings` and `…/series`, the
 * caller's own tenant only. Another tenant's device is 404 like an unknown one: row-level
 * security makes it invisible, so the answer cannot reveal that it exists.
 */
export function mapHistoryEndpoints(v1: EndpointGroup, database: Database, now: () => number = systemClock.now): void {
  v1.get<ReadingsArgs>(
    '/devices/{deviceId}/readings',
    async ({ http, args }) => {
      const tenantId = tenantOf(http.originalPath);
      const page = await database.withTenant(tenantId, async (sql) =>
        (await deviceExists(sql, args.deviceId)) ? readingsPage(sql, tenantId, args) : undefined,
      );
      if (page === undefined) return notFound(args.deviceId);
      const items = page.slice(0, args.limit);
      const last = items[items.length - 1];
      const nextCursor = page.length > args.limit && last !== undefined ? encodeCursor(args.order, last.seq) : null;
      return Results.json({ items: items.map(toWireReading), nextCursor }, 200, NO_STORE);
    },
    { metadata: { api: READINGS_API }, bind: ({ routeValues, query }) => bindReadings(routeValues.deviceId, query) },
  );

  v1.get<SeriesArgs>(
    '/devices/{deviceId}/series',
    async ({ http, args }) => {
      const tenantId = tenantOf(http.originalPath);
      const points = await database.withTenant(tenantId, async (sql) =>
        (await deviceExists(sql, args.deviceId)) ? series(sql, args) : undefined,
      );
      if (points === undefined) return notFound(args.deviceId);
      return Results.json({ bucketMs: args.bucketMs, points }, 200, NO_STORE);
    },
    { metadata: { api: SERIES_API }, bind: ({ routeValues, query }) => bindSeries(routeValues.deviceId, query, now()) },
  );
}
