import {
  WebPubSubClient,
  WebPubSubJsonProtocol,
  WebPubSubJsonReliableProtocol,
  type OnGroupDataMessageArgs,
  type OnServerDataMessageArgs,
  type WebPubSubClientCredential,
} from '@azure/web-pubsub-client';
import type { WireReading } from '../../src/wire/reading.js';

/** A started official Web PubSub client and what it received. */
export interface Subscriber {
  readonly client: WebPubSubClient;
  connectionId: string;
  userId: string | undefined;
  connectedEvents: number;
  readonly group: OnGroupDataMessageArgs['message'][];
  readonly server: OnServerDataMessageArgs['message'][];
  /** Readings from group messages, in arrival order. */
  readings(): WireReading[];
}

/**
 * The official `@azure/web-pubsub-client`, started and connected, recording every group and server
 * message and every `connected` event (reconnects included). `credential` is a client access URL or
 * a `getClientAccessUrl` callback (as a browser app negotiates).
 */
export async function startOfficialClient(
  credential: string | WebPubSubClientCredential,
  reliable: boolean,
): Promise<Subscriber> {
  const options = {
    protocol: reliable ? WebPubSubJsonReliableProtocol() : WebPubSubJsonProtocol(),
    // A refused request should fail at once, not after the client's retries.
    messageRetryOptions: { maxRetries: 0 },
  };
  // Two constructor overloads, so the union is split here.
  const client =
    typeof credential === 'string'
      ? new WebPubSubClient(credential, options)
      : new WebPubSubClient(credential, options);
  const s: Subscriber = {
    client,
    connectionId: '',
    userId: undefined,
    connectedEvents: 0,
    group: [],
    server: [],
    readings: () => s.group.map((m) => m.data as WireReading),
  };
  client.on('group-message', (e) => s.group.push(e.message));
  client.on('server-message', (e) => s.server.push(e.message));
  const connected = new Promise<void>((resolve) =>
    client.on('connected', (e) => {
      s.connectedEvents++;
      s.connectionId = e.connectionId;
      s.userId = e.userId;
      resolve();
    }),
  );
  await client.start();
  await connected;
  return s;
}
