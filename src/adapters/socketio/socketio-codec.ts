import { Encoder, PacketType } from 'socket.io-parser';
import { toBuffer } from '../../wire/webpubsub/encode-data.js';
import type { MessageCodec, OutboundMessage } from '../../wire/message.js';
import { textFrame } from '../../wire/web-socket-frame.js';

export const TELEMETRY_NAMESPACE = '/telemetry';
const encoder = new Encoder();

/** The payload of a socket.io `message` event: a non-reading hub message (PROTOCOL.md). */
export interface SocketIoMessagePayload {
  from: 'group' | 'server';
  group?: string;
  dataType: OutboundMessage['dataType'];
  /** The JSON value, the text, or the bytes (a binary attachment on the wire). */
  data: unknown;
}

/**
 * The socket.io packets of a hub message in the telemetry namespace (src/transport/socketio/PROTOCOL.md):
 * a reading is a `reading` event with the Reading; any other message (a management or client send)
 * is a `message` event `{ from, group?, dataType, data }`, whose binary data travels as a binary
 * attachment. One string packet, or a header and its attachments for binary data. Encoded once per
 * message and written to every member's engine as is (what socket.io's own room broadcast does).
 */
export const socketIoCodec: MessageCodec<readonly (string | Buffer)[]> = {
  id: 'socket.io/event',
  encode(message: OutboundMessage): (string | Buffer)[] {
    if (message.kind === 'reading') return [readingPacket(message.data)];
    return encoder.encode({
      type: PacketType.EVENT,
      nsp: TELEMETRY_NAMESPACE,
      data: ['message', messagePayload(message)],
    }) as (string | Buffer)[];
  },
};

/**
 * socket.io-parser's text packet of a `reading` event, written out: a reading is plain JSON, never
 * binary, so its per-message walk for Buffers (and the debug build's hooks Node loads) are not needed.
 */
function readingPacket(data: unknown): string {
  return `${PacketType.EVENT}${TELEMETRY_NAMESPACE},${JSON.stringify(['reading', data])}`;
}

function messagePayload(message: OutboundMessage): SocketIoMessagePayload {
  const { source, dataType } = message;
  const data =
    dataType === 'binary' ? toBuffer(message.data) : dataType === 'text' ? String(message.data) : message.data;
  return source.kind === 'group'
    ? { from: 'group', group: source.group, dataType, data }
    : { from: 'server', dataType, data };
}

/** What a socket.io connection hands engine.io for one message, the same for every member. */
export interface SocketIoWire {
  /** Engine.IO messages in order: the event packet, then any binary attachments. */
  readonly packets: readonly (string | Buffer)[];
  /**
   * engine.io write options. For a single text packet they carry the Engine.IO message packet
   * (`4` + packet) as a prebuilt WebSocket frame, as socket.io's own room broadcast passes it:
   * engine.io's WebSocket transport writes `wsPreEncodedFrame` as is instead of encoding and
   * framing per socket (polling uses the packet). Shared by every socket of the message;
   * engine.io only re-sets `compress` to true.
   */
  readonly options: { compress: boolean; wsPreEncodedFrame?: Buffer[] };
  /** The same frame, for writing straight to a WebSocket's TCP socket; undefined for binary messages. */
  readonly frame: Buffer | undefined;
}

export const socketIoWireCodec: MessageCodec<SocketIoWire> = {
  id: 'socket.io/event+ws-frame',
  encode(message: OutboundMessage): SocketIoWire {
    const packets = message.encoded(socketIoCodec);
    const [only] = packets;
    if (packets.length !== 1 || typeof only !== 'string')
      return { packets, options: { compress: true }, frame: undefined };
    const frame = textFrame(Buffer.from(`4${only}`, 'utf8'));
    return { packets, options: { compress: true, wsPreEncodedFrame: [frame] }, frame };
  },
};
