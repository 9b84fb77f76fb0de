import type { IncomingMessage } from 'node:http';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import { Errors } from '../../host/errors.js';
import { Results } from '../../host/pipeline/results.js';
import type { EdgeIdentity } from '../../host/edge/edge-identity.js';
import { forwardedHeaders } from './forwarded-headers.js';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { outboundTraceparent, startHopSpan, type SpanStarter } from '../../host/hop-trace.js';
import type { InstancePicker } from './instance-picker.js';
import type { RequestTenant } from './request-tenant.js';
import type { TenantCatalogue } from './tenant-catalogue.js';
import type { UpstreamHealth } from './upstream-health.js';
import type { Upstream } from './upstream.js';

export interface GatewayRouting {
  resolveTenant: (req: IncomingMessage) => Promise<RequestTenant>;
  catalogue: TenantCatalogue;
  health: UpstreamHealth;
  picker: InstancePicker;
  proxy: Upstream;
  defaultStamp: string | undefined;
  /** Origin, client address and proxy trust, as every edge resolves them. */
  edge: EdgeIdentity;
  /** Seconds a client is told to wait when no instance is ready (Retry-After). */
  retryAfterSeconds: number;
  /** A client span per forwarded request (telemetry on); absent: the client's `traceparent` passes as it came. */
  spans?: SpanStarter | undefined;
}

const UNTRUSTED_FORWARDING = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-real-ip',
];

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
        return Results.problem(
          Errors.AUTH_INVALID_TOKEN,
          'The credentials were rejected; get a new token.',
          undefined,
          { 'www-authenticate': 'Bearer error="invalid_token"' },
        );
      }
      let stamp: string | undefined;
      if (who.kind === 'anonymous') {
        stamp = routing.defaultStamp;
        if (stamp === undefined)
          return Results.problem(
            Errors.AUTH_UNAUTHENTICATED,
            'Send a bearer token (or access_token in the query) so the gateway knows your tenant.',
            undefined,
            { 'www-authenticate': 'Bearer' },
          );
      } else {
        try {
          stamp = await routing.catalogue.stampOf(who.tenantId);
        } catch (err) {
          http.log.error({ err, tenantId: who.tenantId }, 'tenant catalogue lookup failed');
          return Results.problem(
            Errors.GATEWAY_CATALOGUE_UNAVAILABLE,
            'The tenant catalogue cannot be read right now.',
            undefined,
            { 'retry-after': String(routing.retryAfterSeconds) },
          );
        }
        if (stamp === undefined)
          return Results.problem(Errors.GATEWAY_UNKNOWN_TENANT, `Tenant '${who.tenantId}' is not served here.`);
      }
      const peerTrusted = routing.edge.peerTrusted(http.raw);
      // socket.io's long-polling session lives on one instance: keep a client's requests there.
      const affinity = http.path.startsWith('/socket.io/') ? http.clientAddress : undefined;
      const target = routing.picker.pick(stamp, routing.health.readyInstances(stamp), affinity);
      if (target === undefined) {
        if (!routing.health.has(stamp))
          http.log.error({ stamp }, 'the catalogue names a stamp that Gateway:Stamps does not list');
        return Results.problem(
          Errors.GATEWAY_NO_READY_INSTANCE,
          `No instance of stamp '${stamp}' is ready.`,
          { stamp },
          { 'retry-after': String(routing.retryAfterSeconds) },
        );
      }
      const span = upstreamSpan(routing.spans, http.method, target, http.upgrade !== undefined);
      const call = {
        target,
        headers: {
          ...forwardedHeaders(http.raw, routing.edge),
          ...(routing.spans === undefined ? {} : { traceparent: outboundTraceparent(span, http.traceId) }),
        },
        drop: peerTrusted ? [] : UNTRUSTED_FORWARDING,
        traceId: http.traceId,
      };
      if (http.upgrade !== undefined) {
        // A WebSocket's span lasts as long as the spliced connection.
        if (span) http.upgrade.socket.once('close', () => span.end());
        routing.proxy.ws(http.raw, http.upgrade.socket, http.upgrade.head, call);
        return Results.handled();
      }
      return Results.handOff((req, res) => {
        if (span) res.once('close', () => endUpstreamSpan(span, res.headersSent ? res.statusCode : null));
        routing.proxy.web(req, res, call);
      });
    },
    { metadata: { allowAnonymous: true }, order: 100, name: 'gateway' },
  );
}

/** The client span of one forwarded request, a child of the gateway's server span (when sampled). */
function upstreamSpan(
  spans: SpanStarter | undefined,
  method: string,
  target: string,
  upgrade: boolean,
): Span | undefined {
  const url = new URL(target);
  return startHopSpan(spans, method, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': method,
      'server.address': url.hostname,
      'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      'url.full': target,
      ...(upgrade ? { 'network.protocol.name': 'websocket' } : {}),
    },
  });
}

function endUpstreamSpan(span: Span, status: number | null): void {
  if (status !== null) span.setAttribute('http.response.status_code', status);
  // A client span is an error for any status ≥ 400, or no answer (semantic conventions).
  if (status === null || status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
