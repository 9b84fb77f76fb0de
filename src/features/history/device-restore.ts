import type { Database } from '../storage/database.js';
import { serviceKey } from '../../host/container/service-key.js';
import type { Reading } from '../../wire/reading.js';

/**
 * Where persisted devices go back at start: the in-memory registry today (its `record`), a shared
 * one in a cluster. The narrow seam between the database and whichever registry the hub runs.
 */
export interface DeviceSink {
  /** False when there is no room for the device (the registry's caps). */
  record(reading: Reading): boolean;
}

export const DEVICE_SINK = serviceKey<DeviceSink>('deviceSink');

interface DeviceRow {
  device_id: string;
  last_reading: { seq: number; ts: number; receivedAt: number; data: Record<string, unknown> } | null;
}

/**
 * Loads every tenant's devices with their last reading into `sink`, so `GET /v1/devices`, a
 * subscribe's `last` and `seq` (which continues from the last one) survive a restart. Returns
 * how many devices were restored.
 */
export async function restoreDevices(database: Database, sink: DeviceSink): Promise<number> {
  const tenants = await database.withSystem(
    async (sql) => (await sql.query<{ tenant_id: string }>('select tenant_id from tenants order by tenant_id')).rows,
  );
  let restored = 0;
  for (const { tenant_id: tenantId } of tenants) {
    const rows = await database.withTenant(
      tenantId,
      async (sql) =>
        (await sql.query<DeviceRow>('select device_id, last_reading from devices order by device_id')).rows,
    );
    for (const row of rows) {
      const last = row.last_reading;
      if (last === null) continue;
      const reading: Reading = {
        tenantId,
        deviceId: row.device_id,
        seq: Number(last.seq),
        ts: Number(last.ts),
        receivedAt: Number(last.receivedAt),
        data: last.data,
      };
      if (sink.record(reading)) restored++;
    }
  }
  return restored;
}
