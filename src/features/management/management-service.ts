import type { Hub } from '../../realtime/hub.js';
import { HubOutboundMessage } from '../../wire/outbound-message.js';
import type { DataType } from '../../wire/message.js';
import { groupSendKind } from './group-send-kind.js';
import type { GroupJoin, PeerConnections, PeerReply, PeerRequest } from '../../realtime/peer-connections.js';
import type { RelayedReadingGate } from './relayed-reading-gate.js';

/**
 * The management operations on this hub, without HTTP: the REST API (management-handler.ts) calls
 * them after checking route, api-version and token, and code running inside the hub process (the
 * `subscribe` function served under `/api`) calls them directly instead of over loopback HTTP.
 * A connection operation runs here when the connection is here, else on the instance that has it
 * (`peers`); sends also reach other nodes through the backplane.
 */
export interface ManagementService {
  /** `Hub:MaxGroupsPerConnection`, for the message of a refused join. */
  readonly maxGroupsPerConnection: number;
  connectionExists(connectionId: string): Promise<boolean>;
  addConnectionToGroup(group: string, connectionId: string): Promise<GroupJoin>;
  removeConnectionFromGroup(group: string, connectionId: string): Promise<void>;
  /** The group's members on every instance. */
  groupConnections(group: string): Promise<{ connectionId: string; userId: string | undefined }[]>;
  closeConnection(connectionId: string): Promise<void>;
  sendToGroup(group: string, dataType: DataType, data: unknown): void;
  sendToAll(dataType: DataType, data: unknown): void;
  sendToUser(userId: string, dataType: DataType, data: unknown): void;
  /** False when no instance has the connection. */
  sendToConnection(connectionId: string, dataType: DataType, data: unknown): Promise<boolean>;
}

export interface ManagementServiceOptions {
  /**
   * Drops a reading sent again to its device group with a `seq` already relayed there (a retried
   * `telemetryToGroups` batch). The repeat is accepted like any send, so the sender does not retry
   * what it cannot tell apart.
   */
  relayedReadings?: RelayedReadingGate;
  /** The other instances (a cluster): connection operations reach the instance that has the connection. */
  peers?: PeerConnections;
}

export function createManagementService(hub: Hub, options: ManagementServiceOptions = {}): ManagementService {
  const server = (dataType: DataType, data: unknown) => new HubOutboundMessage({ kind: 'server' }, dataType, data);
  const { peers } = options;
  peers?.serve((request) => answerLocally(hub, request));
  /** Here when the connection is here, else on the instance that has it; undefined when none has it. */
  const onOwner = async (request: PeerRequest & { connectionId: string }): Promise<PeerReply | undefined> => {
    if (hub.hasConnection(request.connectionId)) return answerLocally(hub, request);
    return (await peers?.ask(request))?.find((reply) => reply.found);
  };
  return {
    maxGroupsPerConnection: hub.maxGroupsPerConnection,
    connectionExists: async (connectionId) => (await onOwner({ op: 'exists', connectionId })) !== undefined,
    addConnectionToGroup: async (group, connectionId) =>
      (await onOwner({ op: 'join', connectionId, group }))?.join ?? 'unknown-connection',
    removeConnectionFromGroup: async (group, connectionId) =>
      void (await onOwner({ op: 'leave', connectionId, group })),
    groupConnections: async (group) => {
      const remote = (await peers?.ask({ op: 'members', group })) ?? [];
      return [
        ...hub.membersOf(group),
        ...remote.flatMap((r) => r.members ?? []).map(({ connectionId, userId }) => ({ connectionId, userId })),
      ];
    },
    closeConnection: async (connectionId) => void (await onOwner({ op: 'close', connectionId })),
    sendToGroup: (group, dataType, data) => {
      const kind = groupSendKind(group, dataType, data);
      if (kind === 'reading' && options.relayedReadings?.admit(group, (data as { seq: number }).seq) === false) return;
      hub.sendToGroup(group, new HubOutboundMessage({ kind: 'group', group }, dataType, data, undefined, kind));
    },
    sendToAll: (dataType, data) => hub.sendToAll(server(dataType, data)),
    sendToUser: (userId, dataType, data) => hub.sendToUser(userId, server(dataType, data)),
    sendToConnection: async (connectionId, dataType, data) => {
      if (hub.hasConnection(connectionId)) return hub.sendToConnection(connectionId, server(dataType, data));
      // Without peers to ask, the backplane may still reach it (202, as the service answers).
      if (peers === undefined) return hub.sendToConnection(connectionId, server(dataType, data));
      if ((await onOwner({ op: 'exists', connectionId })) === undefined) return false;
      return hub.sendToConnection(connectionId, server(dataType, data));
    },
  };
}

/** What this instance does with a request about its own connections. */
function answerLocally(hub: Hub, request: PeerRequest): PeerReply {
  switch (request.op) {
    case 'members':
      return { found: true, members: hub.membersOf(String(request.group)) };
    case 'exists':
      return { found: hub.hasConnection(String(request.connectionId)) };
    case 'join': {
      if (!hub.hasConnection(String(request.connectionId))) return { found: false };
      return { found: true, join: hub.tryJoin(String(request.connectionId), String(request.group)) };
    }
    case 'leave':
      return { found: hub.leave(String(request.connectionId), String(request.group)) };
    case 'close':
      return { found: hub.closeConnection(String(request.connectionId), 'kicked') };
    default:
      return { found: false };
  }
}
