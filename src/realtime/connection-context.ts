import { serviceKey } from '../host/container/service-key.js';

/**
 * Who is at the other end of one live connection (socket.io or Web PubSub), as its connection
 * scope supplies it: fixed when the connection opens, from the credential it was admitted with.
 */
export class ConnectionContext {
  constructor(
    readonly connectionId: string,
    /** The transport's name (`socketio`, `webpubsub`). */
    readonly transport: string,
    readonly userId: string | undefined,
    readonly tenantId: string | undefined,
  ) {}
}

export const CONNECTION_CONTEXT = serviceKey<ConnectionContext>('connectionContext');
