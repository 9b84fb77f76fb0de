import type { IncomingMessage } from 'node:http';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { Errors } from '../host/errors.js';
import { Results } from '../host/pipeline/results.js';
import { childTraceparent, clientAddress, forwardedHeaders } from './forwarded-headers.js';
import type { InstancePicker } from './instance-picker.js';
import type { RequestTenant } from './request-tenant.js';
import type { TenantCatalogue } from './tenant-catalogue.js';
import type { UpstreamHealth } from './upstream-health.js';
import type { UpstreamProxy } from './upstream-proxy.js';

export interface GatewayRouting {
  resolveTenant: (req: IncomingMessage) => Promise<RequestTenant>;
  catalogue: TenantCatalogue;
  health: UpstreamHealth;
  picker: InstancePicker;
  proxy: UpstreamProxy;
  defaultStamp: string | undefined;
  /** Is the peer one of `Http:TrustedProxies`? */
  trusted: (address: string | undefined) => boolean;
  /** Seconds a client is told to wait when no instance is ready (Retry-After). */
  retryAfterSeconds: number;
}

const UNTRUSTED_FORWARDING = ['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-forwarded-prefix', 'x-real-ip'];

/**
 * Every path the gateway does not answer itself: the request's tenant (from its credentials)
 * picks the stamp in the catalogue, a ready instance of that stamp gets the request or upgrade.
 * Unknown tenant → 404; bad credentials → 401; no ready instance → 503 with Retry-After.
 */
export function mapGatewayEndpoint(routes: EndpointGroup, routing: GatewayRouting): void {
  routes.map(
    null,
    '/{*path}',
    async ({ http }) => {
      const who = await routing.resolveTenant(http.raw);
      if (who.kind === 'invalid') {
        return Results.problem(Errors.AUTH_INVALID_TOKEN, 'The credentials were rejected; get a new token.', undefined, { 'www-authenticate': 'Bearer error="invalid_token"' });
      }
      let stamp: string | undefined;
      if (who.kind === 'anonymous') {
        stamp = routing.defaultStamp;
        if (stamp === undefined) return Results.problem(Errors.AUTH_UNAUTHENTICATED, 'Send a bearer token (or access_token in the query) so the gateway knows your tenant.', undefined, { 'www-authenticate': 'Bearer' });
      } else {
        try {
          stamp = await routing.catalogue.stampOf(who.tenantId);
        } catch (err) {
          http.log.error({ err, tenantId: who.tenantId }, 'tenant catalogue lookup failed');
          return Results.problem(Errors.GATEWAY_CATALOGUE_UNAVAILABLE, 'The tenant catalogue cannot be read right now.', undefined, { 'retry-after': String(routing.retryAfterSeconds) });
        }
        if (stamp === undefined) return Results.problem(Errors.GATEWAY_UNKNOWN_TENANT, `Tenant '${who.tenantId}' is not served here.`);
      }
      const peerTrusted = routing.trusted(http.raw.socket.remoteAddress);
      // socket.io's long-polling session lives on one instance: keep a client's requests there.
      const affinity = http.path.startsWith('/socket.io/') ? clientAddress(http.raw, peerTrusted) : undefined;
      const target = routing.picker.pick(stamp, routing.health.readyInstances(stamp), affinity);
      if (target === undefined) {
        if (!routing.health.has(stamp)) http.log.error({ stamp }, 'the catalogue names a stamp that Gateway:Stamps does not list');
        return Results.problem(Errors.GATEWAY_NO_READY_INSTANCE, `No instance of stamp '${stamp}' is ready.`, { stamp }, { 'retry-after': String(routing.retryAfterSeconds) });
      }
      const call = {
        target,
        headers: { ...forwardedHeaders(http.raw, peerTrusted), traceparent: childTraceparent(http.traceId, http.headers.traceparent) },
        drop: peerTrusted ? [] : UNTRUSTED_FORWARDING,
        traceId: http.traceId,
      };
      if (http.upgrade !== undefined) {
        routing.proxy.ws(http.raw, http.upgrade.socket, http.upgrade.head, call);
        return Results.handled();
      }
      return Results.handOff((req, res) => routing.proxy.web(req, res, call));
    },
    { metadata: { allowAnonymous: true }, order: 100, name: 'gateway' },
  );
}
