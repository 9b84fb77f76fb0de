import type { Logger } from 'pino';
import { runWithTenant, tenantFromHeaders } from '../host/security/tenant-context.js';
import { Errors } from '../host/errors.js';
import { categoryLogger } from '../host/logging.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import type { InvocationContext } from '../host/pipeline/endpoint.js';
import { Results } from '../host/pipeline/results.js';
import { RateLimitPolicies } from '../host/security/http/default-rate-limit-policies.js';
import { createManagementHandler, type ManagementHandler } from '../features/management/management-handler.js';
import { RelayedReadingGate } from '../features/management/relayed-reading-gate.js';
import { createManagementService } from '../features/management/management-service.js';
import { authenticateClientUpgrade, type UpgradeAuthOptions } from '../adapters/webpubsub/upgrade-context.js';
import type { UpgradeGuard } from '../host/security/upgrade-guard.js';
import { upgradeRefusal } from '../host/security/http/upgrade-refusal.js';
import { WebPubSubEndpoint } from '../adapters/webpubsub/web-pubsub-endpoint.js';
import type { Application } from './application.js';
import type { ScopeFactory, ServiceResolver } from '../host/container/service-scope.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import {
  APP_CONFIG,
  CLOCK,
  LOGGER,
  MANAGEMENT_SERVICE,
  TOKEN_VERIFIER,
  UPGRADE_GUARD,
  WEB_PUBSUB_ENDPOINT,
} from './app-service-keys.js';
import { TELEMETRY } from './telemetry-services.js';
import { mapFunctionEndpoints } from '../features/serverless/functions-endpoints.js';

/**
 * Serverless mode (contract "Hub — WebSocket", "Management API", "Serverless functions"): the Web
 * PubSub-compatible client endpoint `GET /client/hubs/{hub}`, the management API under `/api`, and
 * the functions' `/api/negotiate` and `/api/subscribe`. All anonymous to the user-token middleware:
 * each checks its own credential (hub access token, management token, user token in the handler).
 * The endpoint and the management service are made by the container; `mapServerless` maps them.
 */
export function registerServerless(registrations: ServiceCollection, scopes: ScopeFactory): void {
  registrations
    .singleton(
      WEB_PUBSUB_ENDPOINT,
      [APP_CONFIG, LOGGER, CLOCK, TELEMETRY],
      (config, log, clock, telemetry) =>
        new WebPubSubEndpoint({
          hub: telemetry.hub,
          lastReading: (tenantId, deviceId) => telemetry.registry.last(tenantId, deviceId),
          catchUp: telemetry.catchUp,
          maxPayloadBytes: config.hub.maxMessageBytes,
          log: categoryLogger(log, config, 'Hub.WebPubSub'),
          clock,
          deliveries: telemetry.deliveries.webpubsub,
          scopes,
        }),
    )
    .singleton(MANAGEMENT_SERVICE, [APP_CONFIG, TELEMETRY], (config, telemetry) =>
      createManagementService(telemetry.hub, {
        relayedReadings: new RelayedReadingGate(config.hub.maxDevices),
        ...(telemetry.peers ? { peers: telemetry.peers } : {}),
      }),
    );
}

/** The serverless endpoints, on the services the built container made. */
export function mapServerless(app: Application, services: ServiceResolver, log: Logger): void {
  const { config, web } = app;
  const auth: UpgradeAuthOptions = { accessKey: config.hub.accessKey, hubName: config.hub.name };
  const endpoint = services.resolve(WEB_PUBSUB_ENDPOINT);
  app.server.onClosing(() => endpoint.closeAll());

  mapClientHub(web.routes, endpoint, auth, services.resolve(UPGRADE_GUARD));
  const management = services.resolve(MANAGEMENT_SERVICE);
  mapManagementApi(
    web.routes,
    createManagementHandler({
      service: management,
      hubName: auth.hubName,
      accessKey: auth.accessKey,
      maxMessageBytes: config.hub.maxMessageBytes,
    }),
  );
  mapFunctionEndpoints(web.routes.group('/api'), {
    hubName: auth.hubName,
    accessKey: auth.accessKey,
    users: services.resolve(TOKEN_VERIFIER),
    management,
    log: categoryLogger(log, config, 'Functions'),
  });
}

/**
 * `GET /client/hubs/{hub}`: the WebSocket upgrade; a plain GET gets 426. The guard admits the
 * handshake before its token is verified and holds a pending slot until the handshake is done.
 */
function mapClientHub(
  routes: EndpointGroup,
  endpoint: WebPubSubEndpoint,
  auth: UpgradeAuthOptions,
  guard: UpgradeGuard,
): void {
  routes.map(
    ['GET'],
    '/client/hubs/{hub}',
    async ({ http }) => {
      if (http.upgrade === undefined) {
        return Results.problem(Errors.HTTP_UPGRADE_REQUIRED, 'Connect with a WebSocket upgrade.', undefined, {
          upgrade: 'websocket',
        });
      }
      const admission = guard.admit(http.raw);
      if (!admission.ok) return upgradeRefusal(admission);
      try {
        // Negotiate signed the URL the client was given (the public one behind a proxy): its origin.
        const verified = await authenticateClientUpgrade(http.raw, http.origin, auth);
        if (!verified.ok) return Results.problem(Errors[verified.rejection.key], verified.rejection.detail);
        endpoint.handleUpgrade(http.raw, http.upgrade.socket, http.upgrade.head, verified.context);
        return Results.handled();
      } finally {
        admission.release();
      }
    },
    // The hub access token (or a reliable session's reconnection token) is checked above, not as a user token.
    { metadata: { allowAnonymous: true } },
  );
}

/** `/api/hubs/…` and `/api/health`, every method: the handler answers 404/405 itself, as the service does. */
function mapManagementApi(routes: EndpointGroup, management: ManagementHandler): void {
  const handler = async ({ http }: InvocationContext) => {
    // A caller's tenant arrives as a header (the functions send it); resolve it again here.
    const tenant = tenantFromHeaders(http.headers);
    const call = () =>
      management({
        method: http.method,
        // The token's audience is the URL as sent, before any path-base stripping.
        url: http.raw.url ?? http.originalPath,
        headers: http.headers,
        origin: http.origin,
        body: http.body,
        traceId: http.traceId,
      });
    const response = tenant ? await runWithTenant(tenant, call) : await call();
    const headers = { ...response.headers };
    return response.body === undefined
      ? Results.status(response.status, headers)
      : Results.bytes(response.body, headers, response.status);
  };
  const options = { metadata: { allowAnonymous: true, rateLimit: RateLimitPolicies.management } };
  routes.map(null, '/api/hubs/{*rest}', handler, options);
  routes.map(null, '/api/health', handler, options);
}
