import type { AppConfig } from './app-config.js';
import type { Clock } from '../host/clock.js';
import type { Host } from '../host/lifecycle/host.js';
import type { WebApplication } from '../host/pipeline/web-application.js';
import type { HealthChecks } from '../host/health/health-checks.js';
import type { HttpServerService } from '../host/http/http-server-service.js';
import type { TelemetryServices } from './telemetry-services.js';
import type { Database } from '../features/storage/database.js';
import type { History } from './history-wiring.js';
import type { Telemetry } from '../adapters/otel/telemetry.js';
import type { JwtVerifier } from '../host/security/jwt-bearer.js';
import type { UpgradeGuard } from '../host/security/upgrade-guard.js';
import type { CacheService } from './cache-service.js';
import type { FirmwareService } from '../features/firmware/firmware-service.js';
import type { HostedServices } from './hosted-services.js';
import type { EdgeIdentity } from '../host/edge/edge-identity.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import type { ServiceProvider } from '../host/container/service-provider.js';

/**
 * What the composition root builds: every part of the hub, for the wiring and for tests. The areas'
 * parts (telemetry, database, history, verifier, upgrades, caches, firmware) are views onto the
 * container's singletons, readable once it is built (after `extend`).
 */
export interface Application {
  config: AppConfig;
  /** The one clock every time-driven part runs on (throttle, rate limits, token expiry, health). */
  clock: Clock;
  host: Host;
  web: WebApplication;
  health: HealthChecks;
  server: HttpServerService;
  telemetry: TelemetryServices;
  /** Tenant-scoped units of work (row-level security); open once the host started. */
  database: Database;
  /** Stored readings (`History:Enabled`, default on): the writer and the reader catch-up uses. */
  history: History | undefined;
  /** OpenTelemetry (`Telemetry:*`): named sources, off unless an exporter is configured. */
  otel: Telemetry;
  /** Origin and client address of every request, at every edge (`Http:PublicBaseUrl`, `Http:TrustedProxies`). */
  edge: EdgeIdentity;
  /** Verifies user tokens; the same verifier guards HTTP endpoints and socket connections. */
  verifier: JwtVerifier;
  /** Admits every WebSocket handshake, socket.io's and Web PubSub's: per-address rate, pending cap. */
  upgrades: UpgradeGuard;
  /** The output cache's store and the data cache (Redis when configured, else memory). */
  caches: CacheService;
  firmware: FirmwareService;
  /** The container's registrations; `extend` may add to them before the container is built. */
  registrations: ServiceCollection;
  /** The built container, validated (set when composing ends); its singletons are disposed after the server stopped. */
  container?: ServiceProvider;
  /**
   * The hosted services, registered in the container in start order (`extend` may add to them);
   * the host starts what the built container resolves, then the server.
   */
  hosted: HostedServices;
}
