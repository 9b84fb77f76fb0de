import { Encoder, PacketType } from 'socket.io-parser';
import type { MessageCodec, OutboundMessage } from '../../hub/types.js';

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
