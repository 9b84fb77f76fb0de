import type { IConversionOptions } from 'protobufjs';
import type { DataType } from '../message.js';
import { ackField, fail, invalid, ok, type FrameError, type ParseResult } from './client-frame.js';
import { groupName } from './parse-client-frame.js';
import { AnyMessage, UpstreamMessage } from './protobuf-schema.js';

/** An UpstreamMessage as protobufjs's toObject gives it (uint64 as decimal strings). */
interface Upstream {
  message?: string;
  sendToGroupMessage?: { group?: string; ackId?: string; data?: Data; noEcho?: boolean };
  eventMessage?: { event?: string; data?: Data; ackId?: string };
  joinGroupMessage?: { group?: string; ackId?: string };
  leaveGroupMessage?: { group?: string; ackId?: string };
  sequenceAckMessage?: { sequenceId?: string };
  pingMessage?: object;
}

interface Data {
  data?: string;
  textData?: string;
  binaryData?: Uint8Array;
  protobufData?: { type_url?: string; value?: Uint8Array };
  jsonData?: string;
}

// uint64 as strings: the exact value, checked against the safe integer range below.
const TO_OBJECT: IConversionOptions = { longs: String, oneofs: true };

/**
 * Parses one client frame of the protobuf subprotocols: bytes of an `UpstreamMessage`. Never
 * throws: bytes that do not decode (truncated, bad wire data, invalid UTF-8 in a string) are
 * `invalid-protobuf`, an empty frame `missing-type`, a message with no request this hub knows
 * `unknown-type`, a known request with a bad field `invalid-field` (with its ackId when usable).
 * The frame `type` in errors uses the JSON subprotocol's names (`joinGroup`, `sendToGroup`, …).
 */
export function parseProtobufClientFrame(bytes: Uint8Array): ParseResult {
  if (bytes.length === 0) return fail({ code: 'missing-type', message: 'The frame is empty.' });
  let upstream: Upstream;
  try {
    upstream = UpstreamMessage.toObject(UpstreamMessage.decode(bytes), TO_OBJECT) as Upstream;
  } catch {
    return fail({ code: 'invalid-protobuf', message: 'The frame is not a protobuf UpstreamMessage.' });
  }
  switch (upstream.message) {
    case 'joinGroupMessage':
    case 'leaveGroupMessage': {
      const type = upstream.message === 'joinGroupMessage' ? 'joinGroup' : 'leaveGroup';
      const m = upstream[upstream.message]!;
      return withAck(m.ackId, type, (ackId) => {
        const group = groupName(m.group);
        if (group === undefined) return invalid(type, ackId, 'group', 'a group name of 1–1024 characters');
        return ok({ type, group, ...ackField(ackId) });
      });
    }
    case 'sendToGroupMessage': {
      const m = upstream.sendToGroupMessage!;
      const type = 'sendToGroup';
      return withAck(m.ackId, type, (ackId) => {
        const group = groupName(m.group);
        if (group === undefined) return invalid(type, ackId, 'group', 'a group name of 1–1024 characters');
        const payload = parseData(m.data, type, ackId);
        if (!payload.ok) return payload;
        return ok({ type, group, noEcho: m.noEcho === true, ...payload.value, ...ackField(ackId) });
      });
    }
    case 'eventMessage': {
      const m = upstream.eventMessage!;
      const type = 'event';
      return withAck(m.ackId, type, (ackId) => {
        if (m.event === undefined || m.event === '') return invalid(type, ackId, 'event', 'a non-empty string');
        const payload = parseData(m.data, type, ackId);
        if (!payload.ok) return payload;
        return ok({ type, event: m.event, ...payload.value, ...ackField(ackId) });
      });
    }
    case 'sequenceAckMessage': {
      const sequenceId = safeInteger(upstream.sequenceAckMessage!.sequenceId ?? '0');
      if (sequenceId === undefined) return invalid('sequenceAck', undefined, 'sequence_id', 'at most 2^53 - 1');
      return ok({ type: 'sequenceAck', sequenceId });
    }
    case 'pingMessage':
      return ok({ type: 'ping' });
    default:
      // Only fields this hub does not know (a newer request, e.g. streaming): ignored.
      return fail({ code: 'unknown-type', message: 'The frame holds no request this hub knows.' });
  }
}

type Payload = { dataType: DataType; data: unknown };

/** MessageData's oneof gives the dataType, as the service reads it. */
function parseData(
  data: Data | undefined,
  type: string,
  ackId: number | undefined,
): { ok: true; value: Payload } | { ok: false; error: FrameError } {
  switch (data?.data) {
    case 'textData':
      return { ok: true, value: { dataType: 'text', data: data.textData ?? '' } };
    case 'binaryData':
      return { ok: true, value: { dataType: 'binary', data: toBuffer(data.binaryData) } };
    case 'protobufData': {
      // Kept as the Any's own bytes: what JSON clients get base64-encoded and simple clients raw.
      const any = AnyMessage.encode(AnyMessage.fromObject(data.protobufData ?? {})).finish();
      return { ok: true, value: { dataType: 'protobuf', data: toBuffer(any) } };
    }
    case 'jsonData':
      try {
        return { ok: true, value: { dataType: 'json', data: JSON.parse(data.jsonData ?? '') as unknown } };
      } catch {
        return invalid(type, ackId, 'json_data', 'JSON text');
      }
    default:
      return invalid(type, ackId, 'data', 'one of text_data, binary_data, protobuf_data, json_data');
  }
}

/** Validates `ack_id` first so that every later error on the frame can be acked. */
function withAck(raw: string | undefined, type: string, next: (ackId: number | undefined) => ParseResult): ParseResult {
  if (raw === undefined) return next(undefined);
  const ackId = safeInteger(raw);
  if (ackId === undefined) return invalid(type, undefined, 'ack_id', 'at most 2^53 - 1');
  return next(ackId);
}

/** A decimal uint64 as a number, when no precision is lost. */
function safeInteger(decimal: string): number | undefined {
  const n = Number(decimal);
  return Number.isSafeInteger(n) ? n : undefined;
}

function toBuffer(bytes: Uint8Array | undefined): Buffer {
  if (bytes === undefined) return Buffer.alloc(0);
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
