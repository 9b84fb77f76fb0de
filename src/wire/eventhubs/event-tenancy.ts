import { ID_PATTERN } from '../../host/ids.js';

/**
 * Who an Event Hubs event belongs to. The tenant is configuration, never a property the device sets:
 * anyone who can send to the hub could write any `tenant_id`. `deviceTenants` maps a device id to its
 * tenant; every other device belongs to `tenant`; a device in neither has no tenant and is dropped.
 * The device id is the one IoT Hub authenticated; a sender's own `deviceId` only when trusted.
 */
export interface EventTenancy {
  /** `Ingestion:EventHubs:Tenant`: the tenant of every device the map does not name. */
  readonly tenant: string | undefined;
  /** `Ingestion:EventHubs:DeviceTenants`: device id → tenant id. */
  readonly deviceTenants: ReadonlyMap<string, string>;
  /**
   * `Ingestion:EventHubs:TrustSenderDeviceId` (default false): an event without IoT Hub's
   * `iothub-connection-device-id` takes its device from the sender's `deviceId` property; when false
   * it is refused, since any sender to a plain event hub could name any device.
   */
  readonly trustSenderDeviceId: boolean;
}

export function tenantOfDevice(tenancy: EventTenancy, deviceId: string | undefined): string | undefined {
  if (deviceId === undefined) return undefined;
  return tenancy.deviceTenants.get(deviceId) ?? tenancy.tenant;
}

/**
 * `device=tenant` pairs separated by commas (or newlines), e.g. `boiler-1=acme, boiler-2=globex`.
 * Throws a short reason naming the bad entry; a device listed twice with different tenants is an error.
 */
export function parseDeviceTenants(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of text.split(/[,\n]/)) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    const deviceId = eq < 0 ? '' : trimmed.slice(0, eq).trim();
    const tenantId = eq < 0 ? '' : trimmed.slice(eq + 1).trim();
    if (!ID_PATTERN.test(deviceId) || !ID_PATTERN.test(tenantId)) {
      throw new Error(`'${trimmed.slice(0, 140)}' is not device=tenant (ids match ${ID_PATTERN})`);
    }
    const known = map.get(deviceId);
    if (known !== undefined && known !== tenantId)
      throw new Error(`device '${deviceId}' is mapped to both '${known}' and '${tenantId}'`);
    map.set(deviceId, tenantId);
  }
  if (map.size === 0) throw new Error('must list at least one device=tenant pair');
  return map;
}
