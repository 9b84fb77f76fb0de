import type { CacheService } from '../cache/cache-service.js';
import type { Clock } from '../host/clock.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { DirectoryStorage } from '../firmware/directory-storage.js';
import type { Database } from '../db/database.js';
import { DatabaseFirmwareCatalog } from '../firmware/database-firmware-catalog.js';
import { mapFirmwareEndpoints } from '../firmware/firmware-endpoints.js';
import { FirmwareService, firmwareTag } from '../firmware/firmware-service.js';
import type { AppConfig } from './app-config.js';

/** Upload limits of the specification ("Limits"): per form section, and in memory per file. */
export const FORM_SECTION_LIMIT_BYTES = 128 * 1024 * 1024;
export const FORM_MEMORY_LIMIT_BYTES = 64 * 1024;

/** Firmware: files under `Storage:Path`, metadata in the database, records through the data cache. */
export function wireFirmware(v1: EndpointGroup, config: AppConfig, caches: CacheService, clock: Clock, database: Database): FirmwareService {
  const service = new FirmwareService({
    storage: new DirectoryStorage(config.firmware.storagePath),
    catalog: new DatabaseFirmwareCatalog(database),
    cache: caches.data,
    clock,
    // The list is output-cached per tenant; an upload makes it stale at once, on every instance.
    onChanged: (tenantId) => caches.outputStore.evictTag(firmwareTag(tenantId)).catch(caches.onStoreError),
  });
  mapFirmwareEndpoints(v1, service, {
    bodyLimitBytes: config.firmware.maxUploadBytes,
    sectionLimitBytes: FORM_SECTION_LIMIT_BYTES,
    memoryLimitBytes: FORM_MEMORY_LIMIT_BYTES,
    tempDir: config.firmware.tempPath,
  });
  return service;
}
