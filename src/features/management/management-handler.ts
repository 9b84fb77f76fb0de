import { requestHost } from '../../host/edge/host-header.js';
import { Errors, type ErrorKey } from '../../host/errors.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../../host/problem.js';
import { bearerToken } from '../../host/edge/credentials.js';
import { verifyManagementToken } from '../../wire/webpubsub/access-token.js';
import { audienceBases, managementAudiences } from '../../wire/webpubsub/audience.js';
import { MAX_GROUP_NAME_LENGTH } from '../../wire/webpubsub/parse-client-frame.js';
import { isSupportedApiVersion, MIN_API_VERSION } from './api-version.js';
import type { ManagementService } from './management-service.js';
import type { ManagementRequest, ManagementResponse } from './management-request.js';
import { matchManagementRoute, ROUTE_METHODS, type ManagementRoute } from './management-route.js';
import { messageFromBody } from './message-body.js';

export interface ManagementHandlerOptions {
  /** The operations on the hub (createManagementService). */
  readonly service: ManagementService;
  /** `Hub:Name`: the hub this host serves. Other hub names are valid but empty, as on the service. */
  readonly hubName: string;
  /** `Hub:AccessKey`: verifies the bearer tokens (HS256). */
  readonly accessKey: string;
  /** `Hub:MaxMessageBytes`: the largest send body (413 beyond). Default 1 MiB. */
  readonly maxMessageBytes?: number;
}

export type ManagementHandler = (req: ManagementRequest) => Promise<ManagementResponse>;

/** The service's hub name rule (REST API `hub` parameter). */
const HUB_NAME = /^[A-Za-z][A-Za-z0-9_`,.[\]]{0,127}$/;

/**
 * The Azure Web PubSub data-plane REST subset over the hub, as one handler for `/api/health` and
 * `/api/hubs/…` (see isManagementPath). Order of checks: route (404), method (405), api-version
 * (400), bearer token (401), then the operation. Status codes follow the service: 200 add to
 * group (404 unknown connection), 204 remove/close (idempotent), 202 sends, 200/404 HEAD, 200
 * `{ value: [{ connectionId, userId }] }` listing a group's connections (api-version 2024-12-01's operation).
 * A connection operation reaches the instance that has the connection, whichever instance the
 * request arrives at (404 only when none has it); listing a group lists its members on every
 * instance; sends reach every instance through the backplane.
 */
export function createManagementHandler(options: ManagementHandlerOptions): ManagementHandler {
  const { service } = options;
  const maxMessageBytes = options.maxMessageBytes ?? 1024 * 1024;
  return async (req) => {
    const method = req.method.toUpperCase();
    const path = req.url.split('?', 1)[0]!;
    const fail = (key: ErrorKey, detail: string): ManagementResponse =>
      problemResponse(key, detail, path, req.traceId, method);

    const route = matchManagementRoute(path);
    if (route === undefined) return fail('HTTP_NOT_FOUND', `No management API at ${path}.`);
    if (!ROUTE_METHODS[route.op].includes(method)) {
      return fail('HTTP_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}.`);
    }
    // The health probe answers without api-version or token, like the service's.
    if (route.op === 'health') return { status: 200 };

    const query = queryOf(req);
    if (!isSupportedApiVersion(query.get('api-version') ?? undefined)) {
      return fail('MGMT_BAD_API_VERSION', `Query api-version must be ${MIN_API_VERSION} or later.`);
    }
    const token = bearerToken(req.headers.authorization);
    if (token === null && req.headers.authorization !== undefined)
      return fail('MGMT_UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>".');
    const verified = await verifyManagementToken(token ?? undefined, {
      accessKey: options.accessKey,
      audiences: managementAudiences(audienceBases(req.origin, requestHost(req.headers) ?? undefined), req.url),
    });
    if (!verified.ok) {
      const detail =
        verified.reason === 'missing'
          ? 'A bearer token is required.'
          : `The bearer token is not valid (${verified.reason}).`;
      return fail('MGMT_UNAUTHENTICATED', detail);
    }

    if (!HUB_NAME.test(route.hub)) return fail('MGMT_BAD_REQUEST', `Invalid hub name '${route.hub}'.`);
    if ('group' in route && !isGroupName(route.group)) {
      return fail(
        'MGMT_BAD_REQUEST',
        `The group name must have 1–${MAX_GROUP_NAME_LENGTH} characters, not only whitespace.`,
      );
    }
    if (query.has('filter') || query.has('excluded')) {
      return fail('MGMT_BAD_REQUEST', 'The filter and excluded parameters are not supported by this hub.');
    }
    // Any valid hub name exists on the service; names other than ours are simply empty hubs.
    const ours = route.hub.toLowerCase() === options.hubName.toLowerCase();
    return operate(route, ours, method, req, fail);
  };

  async function operate(
    route: Exclude<ManagementRoute, { op: 'health' }>,
    ours: boolean,
    method: string,
    req: ManagementRequest,
    fail: (key: ErrorKey, detail: string) => ManagementResponse,
  ): Promise<ManagementResponse> {
    switch (route.op) {
      case 'groupConnection':
        if (method === 'DELETE') {
          if (ours) await service.removeConnectionFromGroup(route.group, route.connectionId);
          return { status: 204 };
        }
        if (ours) {
          const joined = await service.addConnectionToGroup(route.group, route.connectionId);
          if (joined === 'joined') return { status: 200 };
          if (joined === 'group-limit') {
            return fail(
              'HUB_LIMIT',
              `Connection '${route.connectionId}' is in ${service.maxGroupsPerConnection} groups already (Hub:MaxGroupsPerConnection).`,
            );
          }
        }
        return fail('MGMT_UNKNOWN_CONNECTION', `Connection '${route.connectionId}' does not exist.`);
      case 'groupConnections': {
        // One page holds every member: a group's members are few enough to list at once.
        const value = ours
          ? (await service.groupConnections(route.group)).map(({ connectionId, userId }) =>
              userId === undefined ? { connectionId } : { connectionId, userId },
            )
          : [];
        return {
          status: 200,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ value }),
        };
      }
      case 'connection':
        if (method === 'HEAD')
          return { status: ours && (await service.connectionExists(route.connectionId)) ? 200 : 404 };
        if (ours) await service.closeConnection(route.connectionId);
        return { status: 204 };
      case 'sendToGroup':
      case 'sendToAll':
      case 'sendToConnection':
      case 'sendToUser': {
        const size = byteLength(req.body);
        if (size > maxMessageBytes) {
          return fail(
            'HUB_MESSAGE_TOO_LARGE',
            `The message has ${size} bytes; at most ${maxMessageBytes} are allowed (Hub:MaxMessageBytes).`,
          );
        }
        const body = messageFromBody(headerOf(req, 'content-type'), req.body);
        if (!body.ok)
          return fail(body.unsupportedType ? 'HTTP_UNSUPPORTED_MEDIA_TYPE' : 'MGMT_BAD_REQUEST', body.detail);
        if (!ours)
          return route.op === 'sendToConnection'
            ? fail('MGMT_UNKNOWN_CONNECTION', `Connection '${route.connectionId}' does not exist.`)
            : { status: 202 };
        if (route.op === 'sendToGroup') {
          service.sendToGroup(route.group, body.dataType, body.data);
        } else if (route.op === 'sendToAll') {
          service.sendToAll(body.dataType, body.data);
        } else if (route.op === 'sendToUser') {
          service.sendToUser(route.userId, body.dataType, body.data);
        } else if (!(await service.sendToConnection(route.connectionId, body.dataType, body.data))) {
          return fail('MGMT_UNKNOWN_CONNECTION', `Connection '${route.connectionId}' does not exist.`);
        }
        return { status: 202 };
      }
    }
  }
}

function problemResponse(
  key: ErrorKey,
  detail: string,
  instance: string,
  traceId: string | undefined,
  method: string,
): ManagementResponse {
  const definition = Errors[key];
  // HEAD responses carry no body.
  if (method === 'HEAD') return { status: definition.status };
  const body = problem(definition, detail, { instance, traceId: traceId ?? '' });
  return { status: definition.status, headers: { 'content-type': PROBLEM_CONTENT_TYPE }, body: JSON.stringify(body) };
}

function queryOf(req: ManagementRequest): URLSearchParams {
  if (req.query instanceof URLSearchParams) return req.query;
  if (req.query === undefined) {
    const q = req.url.indexOf('?');
    return new URLSearchParams(q >= 0 ? req.url.slice(q + 1) : '');
  }
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) {
    if (typeof value === 'string') params.append(name, value);
    else if (Array.isArray(value)) for (const v of value as readonly string[]) params.append(name, v);
  }
  return params;
}

function headerOf(req: ManagementRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Bytes of a body as handed over; a body the host parsed already counts as 0 (its limit applied). */
function byteLength(body: unknown): number {
  if (body instanceof Uint8Array) return body.byteLength;
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  return 0;
}

function isGroupName(group: string): boolean {
  return group.length > 0 && group.length <= MAX_GROUP_NAME_LENGTH && group.trim() !== '';
}
