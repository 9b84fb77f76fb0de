import protobuf from 'protobufjs';
import type { DataType, WireCodec, WireMessage } from '../message.js';
import { jsonText, toBuffer } from './encode-data.js';
import { AnyMessage, DataMessage, DownstreamMessage } from './protobuf-schema.js';

// Field keys (field number << 3 | wire type) from the definitions: DownstreamMessage.data_message
// is length-delimited (2), DataMessage.sequence_id a varint (0).
const DATA_MESSAGE_KEY = ((DownstreamMessage.fields['dataMessage']!.id << 3) | 2) >>> 0;
const SEQUENCE_ID_KEY = (DataMessage.fields['sequenceId']!.id << 3) >>> 0;

/**
 * One data message of the protobuf subprotocols, encoded once per message. `body` is the
 * DataMessage's fields (from, group, data) and is shared by every connection: `bytes` wraps it
 * into the DownstreamMessage every plain protobuf client gets, and `withSequenceId` wraps it with
 * the connection's `sequence_id` appended, as the reliable subprotocol needs. Fields of a
 * message may follow each other in any order and the encoding of a message is the concatenation
 * of its fields' encodings, so body + the encoded sequence_id field is the DataMessage with
 * that field set, byte for byte what encoding the whole message would give (field 4 comes last).
 */
export class ProtobufFrame {
  #bytes: Buffer | undefined = undefined;

  constructor(readonly body: Buffer) {}

  /** The whole DownstreamMessage without a sequence id (computed on first use). */
  get bytes(): Buffer {
    this.#bytes ??= finish(protobuf.Writer.create().uint32(DATA_MESSAGE_KEY).bytes(this.body));
    return this.#bytes;
  }

  /**
   * The reliable form: the shared body between a small per-connection head (data_message's key
   * and length) and tail (the sequence_id field). One writer encodes both, tail first, since the
   * head's length covers the tail.
   */
  withSequenceId(sequenceId: number): Buffer {
    const writer = protobuf.Writer.create().uint32(SEQUENCE_ID_KEY);
    // The same varint either way; uint32 skips the 64-bit split for the ids every session uses.
    if (sequenceId <= 0xffff_ffff) writer.uint32(sequenceId);
    else writer.uint64(sequenceId);
    const tailLength = writer.len;
    const body = this.body;
    const pieces = writer
      .uint32(DATA_MESSAGE_KEY)
      .uint32(body.length + tailLength)
      .finish();
    const headLength = pieces.length - tailLength;
    const frame = Buffer.allocUnsafe(pieces.length + body.length);
    frame.set(pieces.subarray(tailLength), 0);
    frame.set(body, headLength);
    frame.set(pieces.subarray(0, tailLength), headLength + body.length);
    return frame;
  }
}

/**
 * Hub messages as protobuf DataMessages, mapping each dataType to MessageData as the service
 * does: text and json → text_data (json as its serialized text), binary → binary_data,
 * protobuf → protobuf_data. Both protobuf subprotocols share it.
 */
export const webPubSubProtobufCodec: WireCodec<ProtobufFrame> = {
  id: 'webpubsub.protobuf',
  encode(message: WireMessage): ProtobufFrame {
    const source = message.source;
    const body = DataMessage.encode({
      from: source.kind,
      ...(source.kind === 'group' ? { group: source.group } : {}),
      data: messageData(message.dataType, message.data),
    });
    return new ProtobufFrame(finish(body));
  },
};

function messageData(dataType: DataType, data: unknown): Record<string, unknown> {
  switch (dataType) {
    case 'json':
      return { textData: jsonText(data) };
    case 'text':
      return { textData: typeof data === 'string' ? data : String(data) };
    case 'binary':
      return { binaryData: toBuffer(data) };
    case 'protobuf':
      return { protobufData: AnyMessage.decode(toBuffer(data)) };
  }
}

function finish(writer: protobuf.Writer): Buffer {
  const bytes = writer.finish();
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
