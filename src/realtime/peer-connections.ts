/** The outcome of adding a connection to a group. */
export type GroupJoin = 'joined' | 'group-limit' | 'unknown-connection';

/** What one instance asks the others to do with their local connections. */
export type PeerRequest =
  | { op: 'join'; connectionId: string; group: string }
  | { op: 'leave'; connectionId: string; group: string }
  | { op: 'close'; connectionId: string }
  | { op: 'exists'; connectionId: string }
  | { op: 'members'; group: string };

/** One instance's answer: whether it has the connection, and what the operation did there. */
export interface PeerReply {
  found: boolean;
  join?: GroupJoin;
  members?: { connectionId: string; userId?: string | undefined }[];
}

/**
 * The management API's reach into other instances: a connection lives on one instance, and a
 * request about it may arrive at any. `ask` runs a request on every other instance and resolves
 * with the answers of those that gave one in time (an instance that died meanwhile gives none).
 */
export interface PeerConnections {
  ask(request: PeerRequest): Promise<PeerReply[]>;
  /** How this instance answers the others' requests (its hub's local connections). */
  serve(handler: (request: PeerRequest) => PeerReply): void;
}
