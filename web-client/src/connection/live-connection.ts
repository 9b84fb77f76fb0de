import type { Reading } from '../../../src/wire/reading';

/** What the status pill shows. `reconnecting` covers the first connect too. */
export type ConnectionState = 'connected' | 'reconnecting' | 'offline';

/** The two transports the dashboard can use; the user switches between them. */
export type ConnectionMode = 'socket' | 'serverless';

/** A problem the user should see; the connection keeps running. */
export interface ConnectionProblem {
  code: string;
  message: string;
  deviceId?: string;
}

export interface LiveConnectionEvents {
  reading: (reading: Reading) => void;
  /** Also emitted, as 'connected', for every new connection, so listeners can tell that one was replaced. */
  state: (state: ConnectionState, detail: string) => void;
  problem: (problem: ConnectionProblem) => void;
}

/**
 * A live feed of readings for a set of devices. Implementations keep the wanted set themselves, reconnect on
 * their own and resubscribe every wanted device after each new connection.
 */
export interface LiveConnection {
  readonly mode: ConnectionMode;
  readonly state: ConnectionState;
  start(): void;
  /** Idempotent. Takes effect now when connected, else on the next connection. */
  subscribe(deviceId: string): void;
  unsubscribe(deviceId: string): void;
  on<E extends keyof LiveConnectionEvents>(event: E, fn: LiveConnectionEvents[E]): () => void;
  /** Stops for good; no further events. */
  close(): void;
}
