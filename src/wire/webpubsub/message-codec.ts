import type { WireCodec, WireMessage } from '../message.js';
import { encodeData, toBuffer } from './encode-data.js';
import { groupMessageFrame, serverMessageFrame } from './server-frame.js';

/**
 * One message frame of the JSON subprotocols, encoded once per message: `text` for whoever needs
 * a string, `bytes` (UTF-8, computed on first use) for sockets, so a broadcast is neither
 * serialized nor UTF-8 encoded once per connection.
 */
export class JsonFrame {
  #bytes: Buffer | undefined = undefined;

  constructor(readonly text: string) {}

  get bytes(): Buffer {
    this.#bytes ??= Buffer.from(this.text, 'utf8');
    return this.#bytes;
  }

  /**
   * The reliable form: the connection's sequence id spliced in front of the prebuilt frame
   * (`{"sequenceId":N,` + the rest), copying bytes instead of serializing again.
   */
  withSequenceId(sequenceId: number): Buffer {
    const bytes = this.bytes;
    const head = Buffer.from(`{"sequenceId":${sequenceId},`, 'latin1');
    return Buffer.concat([head, bytes.subarray(1)], head.length + bytes.length - 1);
  }
}

/**
 * Hub messages as JSON subprotocol frames. Both subprotocols share it: the reliable one splices
 * its per-connection sequence id into the same bytes (JsonFrame.withSequenceId).
 */
export const webPubSubJsonCodec: WireCodec<JsonFrame> = {
  id: 'webpubsub.json',
  encode(message: WireMessage): JsonFrame {
    return new JsonFrame(
      message.source.kind === 'group'
        ? groupMessageFrame(message.source.group, message.dataType, message.data)
        : serverMessageFrame(message.dataType, message.data),
    );
  },
};

/** What a simple WebSocket client receives: the bare data, in a text or binary frame. */
export interface SimpleFrame {
  readonly payload: Buffer;
  readonly binary: boolean;
}

/** Hub messages for simple WebSocket clients, as the service delivers them (no envelope). */
export const webPubSubSimpleCodec: WireCodec<SimpleFrame> = {
  id: 'webpubsub.simple',
  encode(message: WireMessage): SimpleFrame {
    switch (message.dataType) {
      case 'binary':
      case 'protobuf':
        return { payload: toBuffer(message.data), binary: true };
      case 'text':
        return {
          payload: Buffer.from(typeof message.data === 'string' ? message.data : String(message.data)),
          binary: false,
        };
      case 'json':
        return { payload: Buffer.from(encodeData('json', message.data)), binary: false };
    }
  },
};
