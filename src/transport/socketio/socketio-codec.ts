import { Encoder, PacketType } from 'socket.io-parser';
import type { MessageCodec, OutboundMessage } from '../../hub/types.js';
import { textFrame } from '../web-socket-frame.js';

export const TELEMETRY_NAMESPACE = '/telemetry';
const encoder = new Encoder();

/**
 * The socket.io wire form of a hub message: a `reading` event packet in the telemetry namespace,
 * encoded once per message and written to every member's engine as is (what socket.io's own
 * room broadcast does).
 */
export const socketIoReadingCodec: MessageCodec<string> = {
  id: 'socket.io/reading',
  encode(message: OutboundMessage): string {
    const [packet] = encoder.encode({ type: PacketType.EVENT, nsp: TELEMETRY_NAMESPACE, data: ['reading', message.data] });
    return packet as string;
  },
};

/** What a socket.io connection hands engine.io for one message, the same for every member. */
export interface SocketIoWire {
  readonly packet: string;
  /**
   * engine.io write options with the Engine.IO message packet (`4` + packet) as a prebuilt
   * WebSocket frame, as socket.io's own room broadcast passes it: engine.io's WebSocket transport
   * writes `wsPreEncodedFrame` as is instead of encoding and framing per socket (polling uses
   * `packet`). Shared by every socket of the message; engine.io only re-sets `compress` to true.
   */
  readonly options: { compress: boolean; wsPreEncodedFrame: Buffer[] };
}

export const socketIoReadingWireCodec: MessageCodec<SocketIoWire> = {
  id: 'socket.io/reading+ws-frame',
  encode(message: OutboundMessage): SocketIoWire {
    const packet = message.encoded(socketIoReadingCodec);
    return { packet, options: { compress: true, wsPreEncodedFrame: [textFrame(Buffer.from(`4${packet}`, 'utf8'))] } };
  },
};
