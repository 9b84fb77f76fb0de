import type { CloseReason } from '../../src/hub/types.js';
import { JSON_SUBPROTOCOL, RELIABLE_JSON_SUBPROTOCOL } from '../../src/protocol/webpubsub/subprotocol.js';
import { closeFor, CloseCode } from '../../src/transport/webpubsub/close-codes.js';
import { runHubConnectionContract, type ConnectionUnderTest } from '../hub/hub-connection.case.js';
import { startHarness } from '../webpubsub/harness.js';
import { openRaw, type RawClient } from '../webpubsub/raw-client.js';

const MAX_UNKEYED = 20;

/** How a frame of a subprotocol carries a message's data; protobuf plugs in its decoder here. */
type Decode = (frame: Record<string, unknown>) => { data: unknown } | undefined;

const decodeJson: Decode = (frame) => (frame.type === 'message' ? { data: frame.data } : undefined);

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

function webPubSubConnection(subprotocol: string, decode: Decode): () => Promise<ConnectionUnderTest> {
  return async () => {
    const harness = await startHarness({ maxUnkeyedQueued: MAX_UNKEYED });
    const client: RawClient = await openRaw(await harness.clientUrl({ userId: 'u', tenantId: 'demo' }), subprotocol);
    const connected = await client.next((f) => f.type === 'system' && f.event === 'connected');
    const connection = harness.endpoint.connection(connected.connectionId as string)!;
    const socket = (client.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    if (subprotocol === RELIABLE_JSON_SUBPROTOCOL) {
      // A reliable client acknowledges what it read, or the resend buffer fills and nothing flows.
      client.ws.on('message', (data, isBinary) => {
        const sequenceId = isBinary ? undefined : (JSON.parse(data.toString()) as { sequenceId?: unknown }).sequenceId;
        if (typeof sequenceId === 'number') client.send({ type: 'sequenceAck', sequenceId });
      });
    }
    return {
      connection,
      get received() {
        const data: unknown[] = [];
        for (const frame of client.frames) {
          const decoded = decode(frame);
          if (decoded !== undefined) data.push(decoded.data);
        }
        return data;
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

runHubConnectionContract('WebPubSubConnection (json.webpubsub.azure.v1)', webPubSubConnection(JSON_SUBPROTOCOL, decodeJson));
runHubConnectionContract('WebPubSubConnection (json.reliable.webpubsub.azure.v1)', webPubSubConnection(RELIABLE_JSON_SUBPROTOCOL, decodeJson));
