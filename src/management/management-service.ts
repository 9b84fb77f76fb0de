import type { Hub } from '../hub/hub.js';
import { HubOutboundMessage } from '../hub/outbound-message.js';
import type { DataType } from '../hub/types.js';
import { groupSendKind } from './group-send-kind.js';
import type { RelayedReadingGate } from './relayed-reading-gate.js';

/** The outcome of adding a connection to a group. */
export type GroupJoin = 'joined' | 'group-limit' | 'unknown-connection';

/**
 * The management operations on this hub, without HTTP: the REST API (management-handler.ts) calls
 * them after checking route, api-version and token, and code running inside the hub process (the
 * `subscribe` function served under `/api`) calls them directly instead of over loopback HTTP.
 * Connections and group members are this node's (the hub's local view); sends also reach other
 * nodes through the backplane.
 */
export interface ManagementService {
  /** `Hub:MaxGroupsPerConnection`, for the message of a refused join. */
  readonly maxGroupsPerConnection: number;
  connectionExists(connectionId: string): boolean;
  addConnectionToGroup(group: string, connectionId: string): GroupJoin;
  removeConnectionFromGroup(group: string, connectionId: string): void;
  /** The group's members on this node. */
  groupConnections(group: string): { connectionId: string; userId: string | undefined }[];
  closeConnection(connectionId: string): void;
  sendToGroup(group: string, dataType: DataType, data: unknown): void;
  sendToAll(dataType: DataType, data: unknown): void;
  sendToUser(userId: string, dataType: DataType, data: unknown): void;
  /** False when no node can have the connection (no such connection here, and no backplane). */
  sendToConnection(connectionId: string, dataType: DataType, data: unknown): boolean;
}

export interface ManagementServiceOptions {
  /**
   * Drops a reading sent again to its device group with a `seq` already relayed there (a retried
   * `telemetryToGroups` batch). The repeat is accepted like any send, so the sender does not retry
   * what it cannot tell apart.
   */
  relayedReadings?: RelayedReadingGate;
}

export function createManagementService(hub: Hub, options: ManagementServiceOptions = {}): ManagementService {
  const server = (dataType: DataType, data: unknown) => new HubOutboundMessage({ kind: 'server' }, dataType, data);
  return {
    maxGroupsPerConnection: hub.maxGroupsPerConnection,
    connectionExists: (connectionId) => hub.hasConnection(connectionId),
    addConnectionToGroup: (group, connectionId) => hub.tryJoin(connectionId, group),
    removeConnectionFromGroup: (group, connectionId) => void hub.leave(connectionId, group),
    groupConnections: (group) => hub.membersOf(group),
    closeConnection: (connectionId) => void hub.closeConnection(connectionId, 'kicked'),
    sendToGroup: (group, dataType, data) => {
      const kind = groupSendKind(group, dataType, data);
      if (kind === 'reading' && options.relayedReadings?.admit(group, (data as { seq: number }).seq) === false) return;
      hub.sendToGroup(group, new HubOutboundMessage({ kind: 'group', group }, dataType, data, undefined, kind));
    },
    sendToAll: (dataType, data) => hub.sendToAll(server(dataType, data)),
    sendToUser: (userId, dataType, data) => hub.sendToUser(userId, server(dataType, data)),
    sendToConnection: (connectionId, dataType, data) => hub.sendToConnection(connectionId, server(dataType, data)),
  };
}
