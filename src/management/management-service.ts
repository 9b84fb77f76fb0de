import type { Hub } from '../hub/hub.js';
import { HubOutboundMessage } from '../hub/outbound-message.js';
import type { DataType } from '../hub/types.js';

/**
 * The management operations on this hub, without HTTP: the REST API (management-handler.ts) calls
 * them after checking route, api-version and token, and code running inside the hub process (the
 * `subscribe` function served under `/api`) calls them directly instead of over loopback HTTP.
 * Connections are this node's (the hub's local view).
 */
export interface ManagementService {
  connectionExists(connectionId: string): boolean;
  /** False when there is no such connection. */
  addConnectionToGroup(group: string, connectionId: string): boolean;
  removeConnectionFromGroup(group: string, connectionId: string): void;
  closeConnection(connectionId: string): void;
  sendToGroup(group: string, dataType: DataType, data: unknown): void;
  sendToAll(dataType: DataType, data: unknown): void;
  /** False when there is no such connection. */
  sendToConnection(connectionId: string, dataType: DataType, data: unknown): boolean;
}

export function createManagementService(hub: Hub): ManagementService {
  return {
    connectionExists: (connectionId) => hub.hasConnection(connectionId),
    addConnectionToGroup: (group, connectionId) => hub.join(connectionId, group),
    removeConnectionFromGroup: (group, connectionId) => void hub.leave(connectionId, group),
    closeConnection: (connectionId) => void hub.closeConnection(connectionId, 'kicked'),
    sendToGroup: (group, dataType, data) => hub.sendToGroup(group, new HubOutboundMessage({ kind: 'group', group }, dataType, data)),
    sendToAll: (dataType, data) => hub.sendToAll(new HubOutboundMessage({ kind: 'server' }, dataType, data)),
    sendToConnection: (connectionId, dataType, data) => hub.sendToConnection(connectionId, new HubOutboundMessage({ kind: 'server' }, dataType, data)),
  };
}
