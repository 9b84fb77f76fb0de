import type { Logger } from 'pino';
import { CacheService } from './cache-service.js';
import { hubKeyPrefix } from '../adapters/redis/hub-key-prefix.js';
import { outputCaching } from '../features/cache/output-caching.js';
import type { OutputCachePolicy } from '../features/cache/output-cache-policy.js';
import { responseCaching } from '../features/cache/response-caching.js';
import type { Clock } from '../host/clock.js';
import { categoryLogger } from '../host/logging.js';
import type { WebApplication } from '../host/pipeline/web-application.js';
import type { AppConfig } from './app-config.js';
import { DEVICES_LIST_POLICY } from '../features/devices/devices-endpoints.js';
import { FIRMWARE_LIST_POLICY } from '../features/firmware/firmware-endpoints.js';
import type { Middleware } from '../host/pipeline/middleware.js';
import { APP_CONFIG, CACHES, CLOCK, LOGGER } from './app-service-keys.js';
import type { HostedServices } from './hosted-services.js';

/** Every named output-cache policy; an endpoint names one in its metadata (`outputCache`). */
export const OUTPUT_CACHE_POLICIES: readonly OutputCachePolicy[] = [DEVICES_LIST_POLICY, FIRMWARE_LIST_POLICY];

/**
 * The caches in the pipeline, after authorization (a cached answer never skips a policy check):
 * the output cache, then response caching (Cache-Control, Vary, ETag, 304) right before the
 * endpoint, so stored answers keep their headers and a hit costs no hashing.
 */
export function useCaching(web: WebApplication, clock: Clock, caches: () => CacheService): void {
  // The caches are made by the container, built after the pipeline is laid out: bound on first use.
  let outputCache: Middleware | undefined;
  web.use((ctx, next) => {
    outputCache ??= outputCaching({
      store: caches().outputStore,
      policies: OUTPUT_CACHE_POLICIES,
      clock,
      onStoreError: caches().onStoreError,
    });
    return outputCache(ctx, next);
  });
  web.use(responseCaching());
}

/** The caches, a hosted service (it connects to Redis when configured), started after the database. */
export function registerCaches(hosted: HostedServices): void {
  hosted.add(CACHES, [APP_CONFIG, CLOCK, LOGGER], (config, clock, log) => createCaches(config, clock, log));
}

function createCaches(config: AppConfig, clock: Clock, log: Logger): CacheService {
  return new CacheService({
    redisUrl: config.redisUrl,
    redisCluster: config.redisCluster,
    keyPrefix: hubKeyPrefix(config.hub.name, config.redisCluster),
    outputCache: config.cache.output,
    dataCache: config.cache.data,
    clock,
    log: categoryLogger(log, config, 'Cache'),
  });
}
