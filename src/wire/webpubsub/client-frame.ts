import type { DataType } from '../message.js';

/**
 * Frames a client sends over the JSON or protobuf subprotocols (plain and reliable), after
 * validation. `ackId` is present only when the client asked for an ack.
 */
export type ClientFrame =
  | { type: 'joinGroup'; group: string; ackId?: number }
  | { type: 'leaveGroup'; group: string; ackId?: number }
  | {
      type: 'sendToGroup';
      group: string;
      ackId?: number;
      noEcho: boolean;
      dataType: DataType;
      /** JSON value for json, string for text, bytes for binary, the encoded Any for protobuf. */
      data: unknown;
    }
  | { type: 'event'; event: string; ackId?: number; dataType: DataType; data: unknown }
  | { type: 'sequenceAck'; sequenceId: number }
  | { type: 'ping' };

/**
 * Why a frame was refused. `invalid-json`, `not-an-object`, `invalid-protobuf` (bytes that do not
 * decode as an UpstreamMessage) and `missing-type` mean the peer does not speak the protocol;
 * `unknown-type` is a newer frame this hub ignores; `invalid-field` is a known frame with a bad
 * field, answered with an ack when the frame carried a usable `ackId`.
 */
export type FrameErrorCode =
  | 'invalid-json'
  | 'not-an-object'
  | 'invalid-protobuf'
  | 'missing-type'
  | 'unknown-type'
  | 'invalid-field';

export interface FrameError {
  readonly code: FrameErrorCode;
  readonly message: string;
  /** The frame's `type`, when it had one. */
  readonly type?: string;
  /** The frame's `ackId`, when it was valid: the error can be acked. */
  readonly ackId?: number;
}

export type ParseResult = { ok: true; frame: ClientFrame } | { ok: false; error: FrameError };

// Result builders shared by the JSON and protobuf frame parsers.

export function ackField(ackId: number | undefined): { ackId?: number } {
  return ackId === undefined ? {} : { ackId };
}

export function ok(frame: ClientFrame): ParseResult {
  return { ok: true, frame };
}

export function fail(error: FrameError): { ok: false; error: FrameError } {
  return { ok: false, error };
}

export function invalid(
  type: string,
  ackId: number | undefined,
  field: string,
  expected: string,
): { ok: false; error: FrameError } {
  return fail({
    code: 'invalid-field',
    type,
    message: `"${field}" must be ${expected}.`,
    ...(ackId === undefined ? {} : { ackId }),
  });
}
