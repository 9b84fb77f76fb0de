import type { CloseReason } from '../../../src/wire/message.js';
import { JSON_SUBPROTOCOL, RELIABLE_JSON_SUBPROTOCOL } from '../../../src/wire/webpubsub/subprotocol.js';
import { closeFor, CloseCode } from '../../../src/wire/webpubsub/close-codes.js';
import { runHubConnectionContract, type ConnectionUnderTest } from '../../realtime/hub-connection.case.js';
import { startHarness } from './harness.js';
import { openRaw } from './raw-client.js';

const MAX_UNKEYED = 20;

/** A frame as the raw client records it: parsed JSON for text frames, `{ binary }` for binary ones. */
type Frame = Record<string, unknown>;

/** How a client of one subprotocol reads frames; the protobuf subprotocols plug in their decoder here. */
interface ClientWire {
  readonly subprotocol: string;
  /** The connection id, when `frame` is the `connected` system frame. */
  connectedId(frame: Frame): string | undefined;
  /** The data of a message frame; undefined for any other frame. */
  message(frame: Frame): { data: unknown } | undefined;
  /** Reliable subprotocols: a frame's sequence id, and the ack that acknowledges it. */
  readonly reliable?: { sequenceId(frame: Frame): number | undefined; ack(sequenceId: number): string | Buffer };
}

const jsonWire: ClientWire = {
  subprotocol: JSON_SUBPROTOCOL,
  connectedId: (f) => (f.type === 'system' && f.event === 'connected' ? (f.connectionId as string) : undefined),
  message: (f) => (f.type === 'message' ? { data: f.data } : undefined),
};

const reliableJsonWire: ClientWire = {
  ...jsonWire,
  subprotocol: RELIABLE_JSON_SUBPROTOCOL,
  reliable: {
    sequenceId: (f) => (typeof f.sequenceId === 'number' ? f.sequenceId : undefined),
    ack: (sequenceId) => JSON.stringify({ type: 'sequenceAck', sequenceId }),
  },
};

/**
 * The reason a Web PubSub client can tell from a close: 1012 is "reconnect" (shutdown); 1008 ends the
 * session and its text names the reason. A 1008 whose text names no reason (too slow) is `policy`.
 */
function reasonOf(code: number, text: string): CloseReason | 'unexpected' {
  if (code === CloseCode.SERVICE_RESTART) return 'shutdown';
  if (code !== CloseCode.POLICY) return 'unexpected';
  const named = (['kicked', 'token-expired', 'policy'] as const).find((r) => closeFor(r).message === text);
  return named ?? 'policy';
}

/** A connection made by the real endpoint, with a bare ws client of `wire`'s subprotocol that can stop reading. */
function webPubSubConnection(wire: ClientWire): () => Promise<ConnectionUnderTest> {
  return async () => {
    const harness = await startHarness({ maxUnkeyedQueued: MAX_UNKEYED });
    const client = await openRaw(await harness.clientUrl({ userId: 'u', tenantId: 'demo' }), wire.subprotocol);
    const connected = await client.next((f) => wire.connectedId(f) !== undefined);
    const connection = harness.endpoint.connection(wire.connectedId(connected)!)!;
    const socket = (client.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    const { reliable } = wire;
    if (reliable) {
      // A reliable client acknowledges what it read, or the resend buffer fills and nothing flows.
      client.ws.on('message', () => {
        const sequenceId = reliable.sequenceId(client.frames.at(-1) ?? {});
        if (sequenceId !== undefined) client.ws.send(reliable.ack(sequenceId));
      });
    }
    return {
      connection,
      get received() {
        return client.frames.flatMap((f) => {
          const message = wire.message(f);
          return message === undefined ? [] : [message.data];
        });
      },
      stall: () => socket.pause(),
      resume: () => socket.resume(),
      pending: () => connection.pending,
      closed: client.closed.then(({ code, reason }) => reasonOf(code, reason) as CloseReason),
      maxUnkeyed: MAX_UNKEYED,
      async dispose() {
        socket.resume();
        client.ws.terminate();
        await harness.close();
      },
    };
  };
}

runHubConnectionContract(`WebPubSubConnection (${JSON_SUBPROTOCOL})`, webPubSubConnection(jsonWire));
runHubConnectionContract(`WebPubSubConnection (${RELIABLE_JSON_SUBPROTOCOL})`, webPubSubConnection(reliableJsonWire));
