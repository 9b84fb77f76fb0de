import type { Logger } from 'pino';
import { CacheService } from '../cache/cache-service.js';
import { outputCaching } from '../cache/output-caching.js';
import type { OutputCachePolicy } from '../cache/output-cache-policy.js';
import { responseCaching } from '../cache/response-caching.js';
import type { Clock } from '../host/clock.js';
import { categoryLogger } from '../host/logging.js';
import type { WebApplication } from '../host/pipeline/web-application.js';
import type { AppConfig } from './app-config.js';
import { DEVICES_LIST_POLICY } from './devices-endpoints.js';
import { FIRMWARE_LIST_POLICY } from '../firmware/firmware-endpoints.js';

/** Every named output-cache policy; an endpoint names one in its metadata (`outputCache`). */
export const OUTPUT_CACHE_POLICIES: readonly OutputCachePolicy[] = [DEVICES_LIST_POLICY, FIRMWARE_LIST_POLICY];

/**
 * The caches in the pipeline, after authorization (a cached answer never skips a policy check):
 * the output cache, then response caching (Cache-Control, Vary, ETag, 304) right before the
 * endpoint, so stored answers keep their headers and a hit costs no hashing.
 */
export function useCaching(web: WebApplication, config: AppConfig, clock: Clock, log: Logger): CacheService {
  const caches = new CacheService({
    redisUrl: config.redisUrl,
    keyPrefix: `telemetry-hub:${config.hub.name}:`,
    outputCache: config.cache.output,
    dataCache: config.cache.data,
    clock,
    log: categoryLogger(log, config, 'Cache'),
  });
  web.use(outputCaching({ store: caches.outputStore, policies: OUTPUT_CACHE_POLICIES, clock, onStoreError: caches.onStoreError }));
  web.use(responseCaching());
  return caches;
}
