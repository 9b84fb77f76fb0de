import type { Logger } from 'pino';
import type { Telemetry } from '../adapters/otel/telemetry.js';
import type { SocketIoTransport } from '../adapters/socketio/socketio-transport.js';
import type { WebPubSubEndpoint } from '../adapters/webpubsub/web-pubsub-endpoint.js';
import type { FirmwareService } from '../features/firmware/firmware-service.js';
import type { ManagementService } from '../features/management/management-service.js';
import { serviceKey } from '../host/container/service-key.js';
import type { Clock } from '../host/clock.js';
import type { EdgeIdentity } from '../host/edge/edge-identity.js';
import type { ApplicationLifetime } from '../host/lifecycle/application-lifetime.js';
import type { JwtVerifier } from '../host/security/jwt-bearer.js';
import type { UpgradeGuard } from '../host/security/upgrade-guard.js';
import type { AppConfig } from './app-config.js';
import type { CacheService } from './cache-service.js';
import type { DatabaseService } from './database-service.js';

// What the host makes before the container (it runs the container): registered as made.
export const APP_CONFIG = serviceKey<AppConfig>('appConfig');
export const LOGGER = serviceKey<Logger>('logger');
export const CLOCK = serviceKey<Clock>('clock');
export const APPLICATION_LIFETIME = serviceKey<ApplicationLifetime>('applicationLifetime');
export const OTEL = serviceKey<Telemetry>('otel');
export const EDGE_IDENTITY = serviceKey<EdgeIdentity>('edgeIdentity');

// The hub's areas, each made by the container from its dependencies (telemetry's and history's keys
// are in their wiring files).
export const TOKEN_VERIFIER = serviceKey<JwtVerifier>('tokenVerifier');
export const DATABASE_SERVICE = serviceKey<DatabaseService>('databaseService');
export const CACHES = serviceKey<CacheService>('caches');
export const UPGRADE_GUARD = serviceKey<UpgradeGuard>('upgradeGuard');
export const SOCKETIO_TRANSPORT = serviceKey<SocketIoTransport>('socketIoTransport');
export const WEB_PUBSUB_ENDPOINT = serviceKey<WebPubSubEndpoint>('webPubSubEndpoint');
export const MANAGEMENT_SERVICE = serviceKey<ManagementService>('managementService');
export const FIRMWARE = serviceKey<FirmwareService>('firmware');
