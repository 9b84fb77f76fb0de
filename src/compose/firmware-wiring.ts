import type { CacheService } from './cache-service.js';
import type { Clock } from '../host/clock.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { DirectoryStorage } from '../adapters/disk/directory-storage.js';
import type { Database } from '../features/storage/database.js';
import { DatabaseFirmwareCatalogue } from '../features/firmware/database-firmware-catalogue.js';
import { mapFirmwareEndpoints } from '../features/firmware/firmware-endpoints.js';
import { FirmwareService, firmwareTag } from '../features/firmware/firmware-service.js';
import type { AppConfig } from './app-config.js';
import { DATABASE } from '../features/storage/database.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import { APP_CONFIG, CACHES, CLOCK, FIRMWARE } from './app-service-keys.js';

/** Upload limits of the specification ("Limits"): per form section, and in memory per file. */
export const FORM_SECTION_LIMIT_BYTES = 128 * 1024 * 1024;
export const FORM_MEMORY_LIMIT_BYTES = 64 * 1024;

/** Firmware: files under `Storage:Path`, metadata in the database, records through the data cache. */
export function registerFirmware(registrations: ServiceCollection): void {
  registrations.singleton(FIRMWARE, [APP_CONFIG, CACHES, CLOCK, DATABASE], createFirmware);
}

function createFirmware(config: AppConfig, caches: CacheService, clock: Clock, database: Database): FirmwareService {
  return new FirmwareService({
    storage: new DirectoryStorage(config.firmware.storagePath),
    catalogue: new DatabaseFirmwareCatalogue(database),
    cache: caches.data,
    clock,
    quota: { maxBytes: config.firmware.maxBytesPerTenant, maxFiles: config.firmware.maxFilesPerTenant },
    // The list is output-cached per tenant; an upload makes it stale at once, on every instance.
    onChanged: (tenantId) => caches.outputStore.evictTag(firmwareTag(tenantId)).catch(caches.onStoreError),
  });
}

/** `/v1/firmware…`, on the service the container made. */
export function mapFirmware(v1: EndpointGroup, config: AppConfig, service: FirmwareService): void {
  mapFirmwareEndpoints(v1, service, {
    bodyLimitBytes: config.firmware.maxUploadBytes,
    sectionLimitBytes: FORM_SECTION_LIMIT_BYTES,
    memoryLimitBytes: FORM_MEMORY_LIMIT_BYTES,
    tempDir: config.firmware.tempPath,
  });
}
