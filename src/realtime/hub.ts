import { deviceGroup, type Reading } from '../wire/reading.js';
import type { Backplane } from './backplane.js';
import type { BackplaneEnvelope, MessageData } from '../wire/backplane-codec.js';
import type { GroupGate } from './catch-up-gate.js';
import { HubOutboundMessage, readingMessage } from '../wire/outbound-message.js';
import type { HubConnection } from './hub-connection.js';
import type { CloseReason, OutboundMessage } from '../wire/message.js';

export interface HubOptions {
  /** Carries group and broadcast sends to other nodes. Default: none (a single node). */
  backplane?: Backplane;
  /** Groups one connection may be in; a join beyond it is refused. Default 1000. */
  maxGroupsPerConnection?: number;
  /** Connections one user (a tenant's `userId`) may hold on this node. Default 100. */
  maxConnectionsPerUser?: number;
  /** Connections one tenant may hold on this node. Default 10 000. */
  maxConnectionsPerTenant?: number;
}

/** What `tryJoin` did: joined (or was a member already), or why not. */
export type JoinResult = 'joined' | 'unknown-connection' | 'group-limit';

/** What `tryJoinGated` did: as tryJoin, or `gated` when a gate of that group is there already. */
export type GatedJoinResult = JoinResult | 'gated';

/** Which connection limit a new connection would exceed; undefined when it fits. */
export type ConnectionLimit = 'user' | 'tenant' | undefined;

interface ConnectionEntry {
  readonly connection: HubConnection;
  readonly groups: Set<string>;
  /** Groups whose messages go through a gate (a catch-up) instead of straight to the connection. */
  gates: Map<string, GroupGate> | undefined;
}

/**
 * Connections and the groups they joined. Every operation is synchronous, so a connection that
 * has joined a group receives every message sent to the group after `join` returns.
 * Groups exist only while they have members: memory follows connections and memberships.
 */
export class Hub {
  readonly #connections = new Map<string, ConnectionEntry>();
  readonly #groups = new Map<string, Set<ConnectionEntry>>();
  /** Per group with local members: resolves once other nodes' sends to it reach this node. */
  readonly #watching = new Map<string, Promise<void>>();
  readonly #backplane: Backplane | undefined;
  readonly #maxGroups: number;
  readonly #maxPerUser: number;
  readonly #maxPerTenant: number;
  /** Live connections per user key and per tenant: what the connection limits count. */
  readonly #perUser = new Map<string, number>();
  readonly #perTenant = new Map<string, number>();
  /** Live connections per transport name (telemetry reads it). */
  readonly #perTransport = new Map<string, number>();

  constructor(options: HubOptions = {}) {
    this.#backplane = options.backplane;
    this.#maxGroups = options.maxGroupsPerConnection ?? 1000;
    this.#maxPerUser = options.maxConnectionsPerUser ?? 100;
    this.#maxPerTenant = options.maxConnectionsPerTenant ?? 10_000;
    this.#backplane?.onMessage((envelope) => this.#deliverRemote(envelope));
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Live connections by transport name; a transport whose connections all left stays at 0. */
  get connectionsByTransport(): ReadonlyMap<string, number> {
    return this.#perTransport;
  }

  /** Groups with at least one local member. */
  get groupCount(): number {
    return this.#groups.size;
  }

  /**
   * The limit a new connection of this user and tenant would exceed, checked before the
   * handshake completes so the client is refused rather than connected and dropped.
   */
  connectionLimit(userId: string | undefined, tenantId: string | undefined): ConnectionLimit {
    if (userId !== undefined && (this.#perUser.get(userKey(userId, tenantId)) ?? 0) >= this.#maxPerUser) return 'user';
    if (tenantId !== undefined && (this.#perTenant.get(tenantId) ?? 0) >= this.#maxPerTenant) return 'tenant';
    return undefined;
  }

  /** Registers a connection unless its user or tenant is at its connection limit (which it names). */
  tryAddConnection(connection: HubConnection): ConnectionLimit {
    const limit = this.connectionLimit(connection.userId, connection.tenantId);
    if (limit === undefined) this.addConnection(connection);
    return limit;
  }

  /** Registers a connection, whatever the connection limits; its id must be unique on this node. */
  addConnection(connection: HubConnection): void {
    if (this.#connections.has(connection.id)) throw new Error(`connection ${connection.id} already exists`);
    this.#connections.set(connection.id, { connection, groups: new Set(), gates: undefined });
    const { userId, tenantId } = connection;
    if (userId !== undefined) bump(this.#perUser, userKey(userId, tenantId), 1);
    if (tenantId !== undefined) bump(this.#perTenant, tenantId, 1);
    this.#perTransport.set(connection.transport, (this.#perTransport.get(connection.transport) ?? 0) + 1);
  }

  /** Forgets a connection and takes it out of every group. False when it was not here. */
  removeConnection(connectionId: string): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return false;
    this.#connections.delete(connectionId);
    const { userId, tenantId } = entry.connection;
    if (userId !== undefined) bump(this.#perUser, userKey(userId, tenantId), -1);
    if (tenantId !== undefined) bump(this.#perTenant, tenantId, -1);
    this.#perTransport.set(entry.connection.transport, this.#perTransport.get(entry.connection.transport)! - 1);
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
    return [...(this.#groups.get(group) ?? [])].map(({ connection }) => ({
      connectionId: connection.id,
      userId: connection.userId,
    }));
  }

  /**
   * Adds a connection to a group (idempotent). False when the connection is not here or is in
   * `maxGroupsPerConnection` groups already; tryJoin tells which.
   */
  join(connectionId: string, group: string): boolean {
    return this.tryJoin(connectionId, group) === 'joined';
  }

  /** Adds a connection to a group (idempotent: a member stays one even at the limit). */
  tryJoin(connectionId: string, group: string): JoinResult {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return 'unknown-connection';
    if (entry.groups.has(group)) return 'joined';
    if (entry.groups.size >= this.#maxGroups) return 'group-limit';
    let members = this.#groups.get(group);
    if (members === undefined) {
      members = new Set();
      this.#groups.set(group, members);
      this.#watching.set(group, this.#backplane?.watch(group) ?? Promise.resolve());
    }
    members.add(entry);
    entry.groups.add(group);
    return 'joined';
  }

  /**
   * Resolves once sends to the group from other nodes reach this node's members (at once for a
   * single node, or a group with no member here). Never rejects.
   */
  groupReady(group: string): Promise<void> {
    return this.#watching.get(group) ?? Promise.resolve();
  }

  /**
   * Joins like tryJoin and routes the group's messages for this connection through the gate `create`
   * makes, until the gate says it is done or `removeGate`. One gate per connection and group.
   */
  tryJoinGated(connectionId: string, group: string, create: (connection: HubConnection) => GroupGate): GatedJoinResult {
    const entry = this.#connections.get(connectionId);
    if (entry?.gates?.has(group) === true) return 'gated';
    const joined = this.tryJoin(connectionId, group);
    if (joined !== 'joined') return joined;
    (entry!.gates ??= new Map()).set(group, create(entry!.connection));
    return 'joined';
  }

  /** True while `gate` is the connection's gate of the group (it left, closed or the gate finished otherwise). */
  hasGate(connectionId: string, group: string, gate: GroupGate): boolean {
    return this.#connections.get(connectionId)?.gates?.get(group) === gate;
  }

  /** Removes the gate if it is still the connection's gate of the group; messages then go straight to it. */
  removeGate(connectionId: string, group: string, gate: GroupGate): void {
    const entry = this.#connections.get(connectionId);
    if (entry !== undefined && entry.gates?.get(group) === gate) this.#dropGate(entry, group);
  }

  /** Groups one connection may be in (`Hub:MaxGroupsPerConnection`). */
  get maxGroupsPerConnection(): number {
    return this.#maxGroups;
  }

  /** Takes a connection out of a group (idempotent). False when the connection is not here. */
  leave(connectionId: string, group: string): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry === undefined) return false;
    if (entry.groups.delete(group)) this.#removeMember(group, entry);
    if (entry.gates?.has(group) === true) this.#dropGate(entry, group);
    return true;
  }

  /** Sends to the group's members here and, through the backplane, on other nodes. */
  sendToGroup(group: string, message: OutboundMessage): void {
    this.#deliverToGroup(group, message);
    this.#backplane?.publish({ kind: 'group', group, message: toData(message) }, message.fence);
  }

  /** Sends to every connection here and, through the backplane, on other nodes. */
  sendToAll(message: OutboundMessage): void {
    this.#deliverToAll(message);
    this.#backplane?.publish({ kind: 'all', message: toData(message) });
  }

  /** Sends to every connection of a user, here and, through the backplane, on other nodes. */
  sendToUser(userId: string, message: OutboundMessage): void {
    this.#deliverToUser(userId, message);
    this.#backplane?.publish({ kind: 'user', userId, message: toData(message) });
  }

  /**
   * Sends to one connection: here when it is here, else through the backplane to the node that
   * has it. False when it is not here and there is no backplane (no other node to have it).
   */
  sendToConnection(connectionId: string, message: OutboundMessage): boolean {
    const entry = this.#connections.get(connectionId);
    if (entry !== undefined) {
      entry.connection.send(message);
      return true;
    }
    if (this.#backplane === undefined) return false;
    this.#backplane.publish({ kind: 'connection', connectionId, message: toData(message) });
    return true;
  }

  /**
   * Sends a reading to its device group, here and on other nodes: the node that accepted a reading
   * is the only one that has it (one ingester per shared source, a partition's owner, a device's
   * embedded broker).
   */
  publishReading(reading: Reading): void {
    const group = deviceGroup(reading.tenantId, reading.deviceId);
    this.sendToGroup(group, readingMessage(reading, group));
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
    if (members.size === 0) {
      this.#groups.delete(group);
      this.#watching.delete(group);
      this.#backplane?.unwatch(group);
    }
  }

  #deliverToGroup(group: string, message: OutboundMessage): void {
    const members = this.#groups.get(group);
    if (members === undefined) return;
    // A send may close its connection and shrink the set; Set iteration tolerates deletion.
    for (const entry of members) {
      if (entry.gates === undefined) entry.connection.send(message);
      else this.#deliverGated(entry, group, message);
    }
  }

  #deliverGated(entry: ConnectionEntry, group: string, message: OutboundMessage): void {
    const gate = entry.gates!.get(group);
    if (gate === undefined) entry.connection.send(message);
    else if (!gate.admit(message) && entry.gates?.get(group) === gate) this.#dropGate(entry, group);
  }

  #dropGate(entry: ConnectionEntry, group: string): void {
    entry.gates!.delete(group);
    if (entry.gates!.size === 0) entry.gates = undefined;
  }

  #deliverToAll(message: OutboundMessage): void {
    for (const entry of this.#connections.values()) entry.connection.send(message);
  }

  #deliverToUser(userId: string, message: OutboundMessage): void {
    for (const entry of this.#connections.values())
      if (entry.connection.userId === userId) entry.connection.send(message);
  }

  #deliverRemote(envelope: BackplaneEnvelope): void {
    const { source, dataType, data, conflationKey, kind, traceparent } = envelope.message;
    const message = new HubOutboundMessage(source, dataType, data, conflationKey, kind);
    message.traceparent = traceparent;
    switch (envelope.kind) {
      case 'group':
        return this.#deliverToGroup(envelope.group, message);
      case 'all':
        return this.#deliverToAll(message);
      case 'user':
        return this.#deliverToUser(envelope.userId, message);
      case 'connection':
        this.#connections.get(envelope.connectionId)?.connection.send(message);
    }
  }
}

/** Users are named within their tenant: two tenants' subs may collide. */
function userKey(userId: string, tenantId: string | undefined): string {
  return `${tenantId ?? ''}\u0000${userId}`;
}

/** Adds `delta` to a count, deleting it at zero so counts never outlive their connections. */
function bump(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

function toData(message: OutboundMessage): MessageData {
  const data: MessageData = {
    source: message.source,
    dataType: message.dataType,
    data: message.data,
    conflationKey: message.conflationKey,
    kind: message.kind ?? 'message',
  };
  // Only a sampled send's context crosses ('1' ends it): an unsampled one would cost bytes for nothing.
  const tp = message.traceparent;
  if (tp !== undefined && tp.charCodeAt(tp.length - 1) === 49) data.traceparent = tp;
  return data;
}
