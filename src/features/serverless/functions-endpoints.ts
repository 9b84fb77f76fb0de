import { handleNegotiate } from '../../wire/serverless/negotiate.js';
import { handleSubscribe } from '../../wire/serverless/subscribe.js';
import type { FunctionLog, FunctionRequest, FunctionResponse } from '../../wire/serverless/function-http.js';
import { createClientUrlIssuer } from '../../wire/serverless/client-url-issuer.js';
import type { ManagementService } from '../management/management-service.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import { Results, type Result } from '../../host/pipeline/results.js';
import { RateLimitPolicies } from '../../host/security/http/default-rate-limit-policies.js';
import type { JwtVerifier } from '../../host/security/jwt-bearer.js';
import { inProcessMembership } from './in-process-membership.js';

export interface FunctionEndpointsOptions {
  /** `Hub:Name`. */
  readonly hubName: string;
  /** `Hub:AccessKey`: signs client tokens, as a connection string's key would. */
  readonly accessKey: string;
  /** Verifies user tokens (`Auth:Jwt:*`). */
  readonly users: JwtVerifier;
  /** The hub's management service, which `subscribe` calls in-process (not over loopback HTTP). */
  readonly management: ManagementService;
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
  const service = inProcessMembership(options.management);

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
    async ({ http }) => toResult(await handleSubscribe(toFunctionRequest(http), { users, service, log })),
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
  return response.body === undefined
    ? Results.status(response.status, headers)
    : Results.bytes(response.body, headers, response.status);
}
