import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import { TENANT_HEADER } from '../../../src/security/tenant-context.js';
import { deviceGroup } from '../../../src/protocol/reading.js';
import { canAccessDevice } from '../../../src/security/authorization.js';
import type { JwtVerifier } from '../../../src/security/jwt-bearer.js';
import { authenticateUser } from './authenticate-user.js';
import { noContent, problemResponse, type FunctionLog, type FunctionRequest, type FunctionResponse } from './function-http.js';
import { parseSubscribeBody } from './subscribe-body.js';
import { describeUpstreamFailure } from './upstream-failure.js';
import { ownerGroup } from '../web-pubsub/client-url-issuer.js';

export interface SubscribeDeps {
  readonly users: JwtVerifier;
  /** The Web PubSub data-plane client (Azure Web PubSub, or the hub's compatible management API). */
  readonly service: Pick<WebPubSubServiceClient, 'group'>;
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

  const { principal } = auth;
  const { connectionId, deviceId } = body.value;
  const tenantId = body.value.tenantId ?? principal.tenantId;
  if (!canAccessDevice(principal, tenantId)) {
    return problemResponse(req, 'AUTH_FORBIDDEN', `You may subscribe to devices of tenant '${principal.tenantId}' only.`);
  }
  const unknown = () => problemResponse(req, 'FUNC_UNKNOWN_CONNECTION', `Connection '${connectionId}' does not exist.`);
  try {
    // The tenant travels with the outbound calls (header tenant_id), so the service side can
    // resolve it again and log it (spec: tenant context across hops).
    const options = { requestOptions: { customHeaders: { [TENANT_HEADER]: tenantId } } };
    if (!(await isOwnConnection(deps.service, ownerGroup(principal.tenantId, principal.sub), connectionId, options))) return unknown();
    await deps.service.group(deviceGroup(tenantId, deviceId)).addConnection(connectionId, options);
  } catch (err) {
    const failure = describeUpstreamFailure(err);
    // The connection closed between the two calls.
    if (failure.statusCode === 404) return unknown();
    if (failure.code === 'HUB_ERR_HUB_LIMIT') {
      return problemResponse(req, 'HUB_LIMIT', 'The connection follows as many devices as it may; unsubscribe from one first.');
    }
    deps.log.warn({ upstream: failure, connectionId, deviceId }, 'subscribe: management api failed');
    return problemResponse(req, 'FUNC_UPSTREAM', 'The real-time service did not accept the request; try again later.');
  }
  return noContent();
}

/** True when `connectionId` is one of the owner group's members: a connection negotiated for this user. */
async function isOwnConnection(
  service: Pick<WebPubSubServiceClient, 'group'>,
  owner: string,
  connectionId: string,
  options: { requestOptions: { customHeaders: Record<string, string> } },
): Promise<boolean> {
  for await (const member of await service.group(owner).listConnections(options)) {
    if (member.connectionId === connectionId) return true;
  }
  return false;
}
