import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import { handleNegotiate } from '../../functions/src/handlers/negotiate.js';
import { handleSubscribe } from '../../functions/src/handlers/subscribe.js';
import type { FunctionLog, FunctionRequest, FunctionResponse } from '../../functions/src/handlers/function-http.js';
import { createClientUrlIssuer } from '../../functions/src/web-pubsub/client-url-issuer.js';
import { createServiceClient } from '../../functions/src/web-pubsub/service-client.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import type { HttpContext } from '../host/pipeline/http-context.js';
import { Results, type Result } from '../host/pipeline/results.js';
import { RateLimitPolicies } from '../security/http/default-rate-limit-policies.js';
import type { JwtVerifier } from '../security/jwt-bearer.js';

export interface FunctionEndpointsOptions {
  /** `Hub:Name`. */
  readonly hubName: string;
  /** `Hub:AccessKey`: signs client tokens and the management API calls, as a connection string's key would. */
  readonly accessKey: string;
  /** Verifies user tokens (`Auth:Jwt:*`). */
  readonly users: JwtVerifier;
  /** The host's own base URL; known once the server listens (app.server.url). */
  readonly serverUrl: () => string | undefined;
  readonly log: FunctionLog;
}

/**
 * `POST /negotiate` and `POST /subscribe` on `api` (mount it at `/api`): the functions/ handlers
 * themselves, run by the host as if it were the Functions runtime, against its own Web PubSub
 * endpoint. Anonymous to the user-token middleware: the handlers check the bearer token, as on Azure.
 */
export function mapFunctionEndpoints(api: EndpointGroup, options: FunctionEndpointsOptions): void {
  const { hubName, accessKey, users, log } = options;
  const metadata = { allowAnonymous: true, rateLimit: RateLimitPolicies.functions };
  let service: WebPubSubServiceClient | undefined;
  // Built on first use: the base URL (the real port) exists only after the server started.
  const serviceClient = (): WebPubSubServiceClient => {
    if (service !== undefined) return service;
    const url = options.serverUrl();
    if (url === undefined) throw new Error('the HTTP server is not listening yet');
    service = createServiceClient(`Endpoint=${url};AccessKey=${accessKey};Version=1.0;`, hubName);
    return service;
  };

  api.post(
    '/negotiate',
    async ({ http }) => {
      // The URL the caller reached us by, not the listen address (which may be localhost or 0.0.0.0).
      const clientUrl = createClientUrlIssuer({ endpoint: http.origin, accessKey, hub: hubName });
      return toResult(await handleNegotiate(toFunctionRequest(http), { users, clientUrl }));
    },
    { metadata },
  );
  api.post(
    '/subscribe',
    async ({ http }) => toResult(await handleSubscribe(toFunctionRequest(http), { users, service: serviceClient(), log })),
    { metadata },
  );
}

function toFunctionRequest(http: HttpContext): FunctionRequest {
  return {
    authorization: http.headers.authorization,
    body: http.body?.toString('utf8') ?? '',
    path: http.originalPath,
    traceId: http.traceId,
  };
}

function toResult(response: FunctionResponse): Result {
  const headers = { ...response.headers };
  return response.body === undefined ? Results.status(response.status, headers) : Results.bytes(response.body, headers, response.status);
}
