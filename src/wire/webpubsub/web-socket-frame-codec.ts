import type { MessageCodec } from '../message.js';
import { webPubSubJsonCodec } from './message-codec.js';
import { webPubSubProtobufCodec } from './protobuf-message-codec.js';
import { binaryFrame, textFrame } from '../web-socket-frame.js';

/**
 * A `json.webpubsub.azure.v1` message as a finished WebSocket frame, built once per message and
 * written to every member's socket as is: per connection this saves ws's framing and a
 * two-buffer writev. Only for frames that are the same for every connection; the reliable
 * protocol's carry a per-connection sequence id.
 */
export const webSocketJsonFrameCodec: MessageCodec<Buffer> = {
  id: 'webpubsub.json.ws-frame',
  encode: (message) => textFrame(message.encoded(webPubSubJsonCodec).bytes),
};

/** The same for `protobuf.webpubsub.azure.v1`: the DownstreamMessage in a binary frame. */
export const webSocketProtobufFrameCodec: MessageCodec<Buffer> = {
  id: 'webpubsub.protobuf.ws-frame',
  encode: (message) => binaryFrame(message.encoded(webPubSubProtobufCodec).bytes),
};
