import { parseDeviceTenants, type EventTenancy } from '../../../src/wire/eventhubs/event-tenancy.js';
import { ID_PATTERN } from '../../../src/host/ids.js';
import { FunctionSettingsError } from './function-settings.js';

/**
 * `EventHubTenant` (every device's tenant) and/or `EventHubDeviceTenants` (`device=tenant,…`), the
 * hub's `Ingestion:EventHubs:Tenant` and `Ingestion:EventHubs:DeviceTenants`: an event's tenant is
 * configuration, never its `tenant_id` property. `EventHubTrustSenderDeviceId` (`true`/`false`,
 * default false), the hub's `Ingestion:EventHubs:TrustSenderDeviceId`: whether an event without IoT
 * Hub's device id may name its device itself. Throws FunctionSettingsError when neither tenant
 * setting is set or one is malformed.
 */
export function readEventTenancy(env: Readonly<Record<string, string | undefined>>): EventTenancy {
  const tenant = env['EventHubTenant']?.trim() || undefined;
  const list = env['EventHubDeviceTenants']?.trim() || undefined;
  if (tenant === undefined && list === undefined)
    throw new FunctionSettingsError('EventHubTenant', 'or EventHubDeviceTenants must be set');
  if (tenant !== undefined && !ID_PATTERN.test(tenant))
    throw new FunctionSettingsError('EventHubTenant', `must match ${ID_PATTERN}`);
  let deviceTenants = new Map<string, string>();
  if (list !== undefined) {
    try {
      deviceTenants = parseDeviceTenants(list);
    } catch (err) {
      throw new FunctionSettingsError('EventHubDeviceTenants', `is invalid: ${(err as Error).message}`);
    }
  }
  const trust = env['EventHubTrustSenderDeviceId']?.trim().toLowerCase() || 'false';
  if (trust !== 'true' && trust !== 'false')
    throw new FunctionSettingsError('EventHubTrustSenderDeviceId', 'must be true or false');
  return { tenant, deviceTenants, trustSenderDeviceId: trust === 'true' };
}
