import { deviceGroup } from '../reading.js';
import { canAccessDevice } from '../../host/security/authorization.js';
import type { JwtVerifier } from '../../host/security/jwt-bearer.js';
import type { Principal } from '../../host/security/principal.js';
import { currentTenant, runWithTenant, tenantHeaders } from '../../host/security/tenant-context.js';
import { authenticateUser } from './authenticate-user.js';
import {
  noContent,
  problemResponse,
  type FunctionLog,
  type FunctionRequest,
  type FunctionResponse,
} from './function-http.js';
import { parseSubscribeBody, type SubscribeBody } from './subscribe-body.js';
import { describeUpstreamFailure } from './upstream-failure.js';
import { ownerGroup } from './client-url-issuer.js';
import { Errors } from '../../host/errors.js';

/** Per-call options; the tenant travels as a header on outbound calls. */
export interface MembershipCallOptions {
  requestOptions?: { customHeaders?: Record<string, string> };
}

/**
 * What subscribe needs of the real-time service. The official `WebPubSubServiceClient` fits (Azure
 * Web PubSub, or the hub's management API over HTTP); inside the hub process the hub's management
 * service is called directly. A call about an unknown connection rejects with `statusCode: 404`.
 */
export interface GroupMembershipService {
  group(groupName: string): {
    addConnection(connectionId: string, options?: MembershipCallOptions): Promise<void>;
    listConnections(
      options?: MembershipCallOptions,
    ): AsyncIterable<{ connectionId: string }> | Promise<AsyncIterable<{ connectionId: string }>>;
  };
}

export interface SubscribeDeps {
  readonly users: JwtVerifier;
  readonly service: GroupMembershipService;
  readonly log: FunctionLog;
}

/**
 * `POST /api/subscribe` `{ connectionId, deviceId, tenantId? }` (contract "Serverless functions"):
 * adds the connection to `device:{tenant}:{device}` through the management API → 204.
 * 401 no/invalid token, 400 bad body, 403 another tenant's device, 404 unknown connection,
 * 429 when the connection is in as many groups as the hub allows (HUB_ERR_HUB_LIMIT),
 * 502 when the management API fails otherwise (details logged, never returned).
 *
 * Only the caller's own connections: a connection belongs to the user it was negotiated for, which
 * the function learns by listing the user's owner group (see ownerGroup). Someone else's connection
 * gets the same 404 as one that does not exist, so connection ids of other users cannot be probed.
 */
export async function handleSubscribe(req: FunctionRequest, deps: SubscribeDeps): Promise<FunctionResponse> {
  const auth = await authenticateUser(req, deps.users);
  if (!auth.ok) return auth.response;
  const body = parseSubscribeBody(req.body);
  if (!body.ok) return problemResponse(req, 'FUNC_BAD_BODY', body.detail);

  // Everything below runs in the caller's tenant context, as an HTTP handler behind the host's
  // authentication does; the tenant is read from there.
  return runWithTenant(auth.principal.tenantId, () => subscribeInTenant(req, deps, auth.principal, body.value));
}

async function subscribeInTenant(
  req: FunctionRequest,
  deps: SubscribeDeps,
  principal: Principal,
  body: SubscribeBody,
): Promise<FunctionResponse> {
  const { connectionId, deviceId } = body;
  const tenantId = body.tenantId ?? currentTenant()!;
  if (!canAccessDevice(principal, tenantId)) {
    return problemResponse(
      req,
      'AUTH_FORBIDDEN',
      `You may subscribe to devices of tenant '${principal.tenantId}' only.`,
    );
  }
  const unknown = () => problemResponse(req, 'FUNC_UNKNOWN_CONNECTION', `Connection '${connectionId}' does not exist.`);
  try {
    // The tenant travels with the outbound calls (header tenant_id), so the service side can
    // resolve it again and log it (spec: tenant context across hops).
    const options = { requestOptions: { customHeaders: tenantHeaders() } };
    if (!(await isOwnConnection(deps.service, ownerGroup(principal.tenantId, principal.sub), connectionId, options)))
      return unknown();
    await deps.service.group(deviceGroup(tenantId, deviceId)).addConnection(connectionId, options);
  } catch (err) {
    const failure = describeUpstreamFailure(err);
    // The connection closed between the two calls.
    if (failure.statusCode === 404) return unknown();
    if (failure.code === Errors.HUB_LIMIT.code) {
      return problemResponse(
        req,
        'HUB_LIMIT',
        'The connection follows as many devices as it may; unsubscribe from one first.',
      );
    }
    deps.log.warn({ upstream: failure, connectionId, deviceId }, 'subscribe: management api failed');
    return problemResponse(req, 'FUNC_UPSTREAM', 'The real-time service did not accept the request; try again later.');
  }
  return noContent();
}

/** True when `connectionId` is one of the owner group's members: a connection negotiated for this user. */
async function isOwnConnection(
  service: GroupMembershipService,
  owner: string,
  connectionId: string,
  options: MembershipCallOptions,
): Promise<boolean> {
  for await (const member of await service.group(owner).listConnections(options)) {
    if (member.connectionId === connectionId) return true;
  }
  return false;
}
