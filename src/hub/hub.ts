import { deviceGroup, type Reading } from '../protocol/reading.js';
import type { Backplane, BackplaneEnvelope, MessageData } from './backplane.js';
import { HubOutboundMessage, readingMessage } from './outbound-message.js';
import type { CloseReason, HubConnection, OutboundMessage } from './types.js';

export interface HubOptions {
  /** Carries group and broadcast sends to other nodes. Default: none (a single node). */
  backplane?: Backplane;
  /**
   * `local` when every node ingests every reading itself (MQTT: each node subscribes to all
   * topics), so sending readings across the backplane would deliver them twice; `backplane` when
   * sources are partitioned across nodes (Event Hubs). Default `backplane`.
   */
  readingsFanOut?: 'local' | 'backplane';
}

interface ConnectionEntry {
  readonly connection: HubConnection;
  readonly groups: Set<string>;
}

/**
 * Connections and the groups they joined. Every operation is synchronous, so a connection that
 * has joined a group receives every message sent to the group after `join` returns.
 * Groups exist only while they have members: memory follows connections and memberships.
 */
export class Hub {
  readonly #connections = new Map<string, ConnectionEntry>();
  readonly #groups = new Map<string, Set<ConnectionEntry>>();
  readonly #backplane: Backplane | undefined;
  readonly #readingsLocal: boolean;

  constructor(options: HubOptions = {}) {
    this.#backplane = options.backplane;
    this.#readingsLocal = options.readingsFanOut === 'local';
    this.#backplane?.onMessage((envelope) => this.#deliverRemote(envelope));
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Groups with at least one local member. */
  get groupCount(): number {
    return this.#groups.size;
  }

  /** Registers a connection; its id must be unique on this node. */
  addConnection(connection: HubConnection): void {
    if (this.#connections.has(connection.id)) throw new Error(`connection ${connection.id} already exists`);
    this.#connections.set(connection.id, { connection, groups: new Set() });
  }

  /** Forgets a connection and takes it out of every group. False when it was not here. */
  removeConnection(connectionId: string): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return false;
    this.#connections.delete(connectionId);
    for (const group of entry.groups) this.#removeMember(group, entry);
    entry.groups.clear();
    return true;
  }

  hasConnection(connectionId: string): boolean {
    return this.#connections.has(connectionId);
  }

  /** The groups a connection is in (a copy); empty for an unknown connection. */
  groupsOf(connectionId: string): string[] {
    const entry = this.#connections.get(connectionId);
    return entry === undefined ? [] : [...entry.groups];
  }

  /** The group's members on this node: connection id and user id (management API "list connections in a group"). */
  membersOf(group: string): { connectionId: string; userId: string | undefined }[] {
    return [...(this.#groups.get(group) ?? [])].map(({ connection }) => ({ connectionId: connection.id, userId: connection.userId }));
  }

  /** Adds a connection to a group (idempotent). False when the connection is not here. */
  join(connectionId: string, group: string): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return false;
    let members = this.#groups.get(group);
    if (members === undefined) {
      members = new Set();
      this.#groups.set(group, members);
    }
    members.add(entry);
    entry.groups.add(group);
    return true;
  }

  /** Takes a connection out of a group (idempotent). False when the connection is not here. */
  leave(connectionId: string, group: string): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return false;
    if (entry.groups.delete(group)) this.#removeMember(group, entry);
    return true;
  }

  /** Sends to the group's members here and, through the backplane, on other nodes. */
  sendToGroup(group: string, message: OutboundMessage): void {
    this.#deliverToGroup(group, message);
    this.#backplane?.publish({ kind: 'group', group, message: toData(message) });
  }

  /** Sends to every connection here and, through the backplane, on other nodes. */
  sendToAll(message: OutboundMessage): void {
    this.#deliverToAll(message);
    this.#backplane?.publish({ kind: 'all', message: toData(message) });
  }

  /** Sends to one local connection. False when it is not on this node. */
  sendToConnection(connectionId: string, message: OutboundMessage): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return false;
    entry.connection.send(message);
    return true;
  }

  /** Sends a reading to its device group. */
  publishReading(reading: Reading): void {
    const group = deviceGroup(reading.tenantId, reading.deviceId);
    if (this.#readingsLocal) this.#deliverToGroup(group, readingMessage(reading));
    else this.sendToGroup(group, readingMessage(reading));
  }

  /**
   * Removes the connection, then asks its transport to close it, so nothing is sent to a
   * closing connection. False when it was not here.
   */
  closeConnection(connectionId: string, reason: CloseReason): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return false;
    this.removeConnection(connectionId);
    entry.connection.close(reason);
    return true;
  }

  /** Closes every connection, e.g. with `shutdown` so clients reconnect elsewhere. */
  closeAll(reason: CloseReason): void {
    for (const id of [...this.#connections.keys()]) this.closeConnection(id, reason);
  }

  #removeMember(group: string, entry: ConnectionEntry): void {
    const members = this.#groups.get(group);
    if (members === undefined) return;
    members.delete(entry);
    if (members.size === 0) this.#groups.delete(group);
  }

  #deliverToGroup(group: string, message: OutboundMessage): void {
    const members = this.#groups.get(group);
    if (members === undefined) return;
    // A send may close its connection and shrink the set; Set iteration tolerates deletion.
    for (const entry of members) entry.connection.send(message);
  }

  #deliverToAll(message: OutboundMessage): void {
    for (const entry of this.#connections.values()) entry.connection.send(message);
  }

  #deliverRemote(envelope: BackplaneEnvelope): void {
    const { source, dataType, data, conflationKey } = envelope.message;
    const message = new HubOutboundMessage(source, dataType, data, conflationKey);
    if (envelope.kind === 'group') this.#deliverToGroup(envelope.group, message);
    else this.#deliverToAll(message);
  }
}

function toData(message: OutboundMessage): MessageData {
  return {
    source: message.source,
    dataType: message.dataType,
    data: message.data,
    conflationKey: message.conflationKey,
  };
}
