import type { CatchUp } from '../../realtime/catch-up.js';
import type { Hub } from '../../realtime/hub.js';
import type { ServiceResolver } from '../../host/container/service-scope.js';
import { TENANT_CONTEXT } from '../../host/security/tenant-scope.js';
import { HubOutboundMessage } from '../../wire/outbound-message.js';
import { deviceGroup, type Reading } from '../../wire/reading.js';
import { isValidId } from '../../host/ids.js';
import type { ClientFrame } from '../../wire/webpubsub/client-frame.js';
import { canJoinLeaveGroup, canSendToGroup } from '../../wire/webpubsub/permissions.js';
import type { AckError } from '../../wire/webpubsub/server-frame.js';
import { catchUpSummaryMessage } from './catch-up-summary.js';
import type { WebPubSubConnection } from './web-pubsub-connection.js';

export interface ClientFrameDeps {
  /** The connection's service scope: who connected, and the tenant context of the connection. */
  readonly services: ServiceResolver;
  readonly hub: Hub;
  /** The device's last accepted reading, sent after a successful `subscribe`. */
  readonly lastReading?: ((tenantId: string, deviceId: string) => Reading | undefined) | undefined;
  /** Replays what a `subscribe` with `since` missed; without it such a subscribe is refused. */
  readonly catchUp?: CatchUp | undefined;
}

/** The hub methods a client invokes with an `event` frame over the same connection. */
export const SUBSCRIBE_EVENT = 'subscribe';
export const UNSUBSCRIBE_EVENT = 'unsubscribe';

/** The ack's error, none (success), or `deferred`: the handler acks later itself (a catch-up answers when its replay starts). */
type Outcome = AckError | undefined | 'deferred';

/**
 * Runs one valid client frame against the hub. Requests with an ackId are answered with an ack;
 * one whose ackId already succeeded on this connection is answered `Duplicate` and not re-run
 * (the reliable protocol's idempotent publishing).
 */
export function handleClientFrame(connection: WebPubSubConnection, frame: ClientFrame, deps: ClientFrameDeps): void {
  switch (frame.type) {
    case 'ping':
      connection.sendPong();
      return;
    case 'sequenceAck':
      connection.acknowledge(frame.sequenceId);
      return;
    default:
      break;
  }
  const ackId = frame.ackId;
  if (ackId !== undefined && connection.ackIds.has(ackId)) {
    connection.sendAck(ackId, { name: 'Duplicate', message: `Message with ack-id: ${ackId} has been processed.` });
    return;
  }
  let after: (() => void) | undefined;
  let ready: Promise<void> | undefined;
  let outcome: Outcome;
  switch (frame.type) {
    case 'joinGroup':
      outcome = joinOrLeave(connection, frame.group, deps.hub, 'join');
      break;
    case 'leaveGroup':
      outcome = joinOrLeave(connection, frame.group, deps.hub, 'leave');
      break;
    case 'sendToGroup':
      outcome = sendToGroup(connection, frame, deps.hub);
      break;
    case 'event':
      [outcome, after, ready] = event(connection, frame, deps);
      break;
  }
  if (outcome === 'deferred') return;
  const done = outcome;
  if (ackId !== undefined && done === undefined) connection.ackIds.add(ackId);
  const finish = () => {
    if (ackId !== undefined) connection.sendAck(ackId, done);
    // After the ack: e.g. the last reading follows the subscribe ack it belongs to.
    after?.();
  };
  // A subscribe is acknowledged once other instances' readings of the device reach this one.
  if (ready === undefined) finish();
  else void ready.then(finish);
}

function joinOrLeave(connection: WebPubSubConnection, group: string, hub: Hub, op: 'join' | 'leave'): Outcome {
  if (!canJoinLeaveGroup(connection.claims, group)) {
    return { name: 'Forbidden', message: `The connection has no permission to join or leave group '${group}'.` };
  }
  if (op === 'leave') hub.leave(connection.id, group);
  else if (hub.tryJoin(connection.id, group) === 'group-limit') return groupLimit(hub);
  return undefined;
}

/** The group limit as an ack error; the code in the message is the one socket.io clients get. */
function groupLimit(hub: Hub): AckError {
  return {
    name: 'Forbidden',
    message: `The connection is in ${hub.maxGroupsPerConnection} groups already (HUB_ERR_HUB_LIMIT); leave one first.`,
  };
}

function sendToGroup(
  connection: WebPubSubConnection,
  frame: Extract<ClientFrame, { type: 'sendToGroup' }>,
  hub: Hub,
): Outcome {
  if (!canSendToGroup(connection.claims, frame.group)) {
    return { name: 'Forbidden', message: `The connection has no permission to send to group '${frame.group}'.` };
  }
  const message = new HubOutboundMessage({ kind: 'group', group: frame.group }, frame.dataType, frame.data);
  if (frame.noEcho) connection.excludeEcho(message);
  hub.sendToGroup(frame.group, message);
  return undefined;
}

function event(
  connection: WebPubSubConnection,
  frame: Extract<ClientFrame, { type: 'event' }>,
  deps: ClientFrameDeps,
): [Outcome, (() => void) | undefined, Promise<void>?] {
  if (frame.event !== SUBSCRIBE_EVENT && frame.event !== UNSUBSCRIBE_EVENT) {
    // The service would route it to an upstream event handler; this hub has none.
    return [{ name: 'NotFound', message: `No handler for event '${frame.event}'.` }, undefined];
  }
  const body = eventJson(frame) as { deviceId?: unknown; since?: unknown } | null | undefined;
  const deviceId = body?.deviceId;
  if (!isValidId(deviceId)) {
    return [
      { name: 'BadRequest', message: 'The event data must be JSON { "deviceId": string } with a valid device id.' },
      undefined,
    ];
  }
  // The tenant of the access token the connection was admitted with (its scope's tenant context).
  const tenantId = deps.services.resolve(TENANT_CONTEXT).tenantId;
  if (tenantId === undefined) {
    return [{ name: 'Forbidden', message: 'The access token names no tenant (claim tenant_id).' }, undefined];
  }
  const group = deviceGroup(tenantId, deviceId);
  if (frame.event === UNSUBSCRIBE_EVENT) {
    deps.hub.leave(connection.id, group);
    return [undefined, undefined];
  }
  if (body?.since !== undefined)
    return [subscribeSince(connection, frame.ackId, tenantId, deviceId, body.since, deps), undefined];
  // Joined before the ack: every reading accepted after the ack reaches this connection.
  if (deps.hub.tryJoin(connection.id, group) === 'group-limit') return [groupLimit(deps.hub), undefined];
  const sendLast = () => {
    // Read once the group is ready: the cluster's last value, not a stale one of this instance.
    const last = deps.lastReading?.(tenantId, deviceId);
    // A server message (not a group one): the snapshot is this connection's alone. Keyed by the
    // group, so a newer reading replaces it when the connection is slow.
    if (last !== undefined) connection.send(new HubOutboundMessage({ kind: 'server' }, 'json', last, group));
  };
  return [undefined, sendLast, deps.hub.groupReady(group)];
}

/**
 * `subscribe` `{ deviceId, since }`: the ack, a server message `{ catchUp: { deviceId, since, last,
 * replayed, truncated } }` saying what follows, the readings after `since` as group messages, then
 * live (CatchUp). Acked when the replay starts, so the ack and the summary come before it.
 */
function subscribeSince(
  connection: WebPubSubConnection,
  ackId: number | undefined,
  tenantId: string,
  deviceId: string,
  since: unknown,
  deps: ClientFrameDeps,
): Outcome {
  const { catchUp } = deps;
  if (catchUp === undefined) return { name: 'BadRequest', message: 'This hub keeps no history to catch up from.' };
  if (!Number.isSafeInteger(since) || (since as number) < 0)
    return { name: 'BadRequest', message: 'since must be a seq: an integer ≥ 0.' };
  const request = { connectionId: connection.id, tenantId, deviceId, since: since as number };
  const started = catchUp.start(request, ({ replayed, truncated }) => {
    if (ackId !== undefined) {
      connection.ackIds.add(ackId);
      connection.sendAck(ackId);
    }
    const last = deps.lastReading?.(tenantId, deviceId);
    connection.send(catchUpSummaryMessage(deviceId, since as number, last, { replayed, truncated }));
  });
  if (started === 'group-limit') return groupLimit(deps.hub);
  if (started === 'gated')
    return {
      name: 'Forbidden',
      message: `A catch-up of '${deviceId}' is in progress (HUB_ERR_HUB_LIMIT); wait for its ack.`,
    };
  return 'deferred';
}

/**
 * An event's data as JSON: json data as is, or text holding JSON, which is how protobuf clients
 * built from the reference's definitions send it (their MessageData has no JSON case).
 */
function eventJson(frame: Extract<ClientFrame, { type: 'event' }>): unknown {
  if (frame.dataType === 'json') return frame.data;
  if (frame.dataType !== 'text') return undefined;
  try {
    return JSON.parse(frame.data as string) as unknown;
  } catch {
    return undefined;
  }
}
