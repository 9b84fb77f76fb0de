import type { DataType } from '../message.js';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../json-depth.js';
import { ackField, fail, invalid, ok, type FrameError, type ParseResult } from './client-frame.js';

/** The service's limit on group names (REST API: 1–1024 characters, not only whitespace). */
export const MAX_GROUP_NAME_LENGTH = 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Parses one client text frame. Never throws: anything malformed comes back as a typed error
 * (see FrameErrorCode), carrying the frame's ackId when that one was usable.
 */
export function parseClientFrame(text: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail({ code: 'invalid-json', message: 'The frame is not valid JSON.' });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail({ code: 'not-an-object', message: 'The frame must be a JSON object.' });
  }
  const raw = value as Record<string, unknown>;
  const type = raw['type'];
  if (typeof type !== 'string' || type === '') {
    return fail({ code: 'missing-type', message: 'The frame has no "type".' });
  }
  // The frame is one level around its data: data may nest MAX_JSON_DEPTH levels, like a reading.
  if (jsonTextTooDeep(text, MAX_JSON_DEPTH + 1)) {
    const ackId = raw['ackId'];
    return invalid(type, isUint(ackId) ? ackId : undefined, 'data', `nested at most ${MAX_JSON_DEPTH} levels deep`);
  }
  switch (type) {
    case 'joinGroup':
    case 'leaveGroup':
      return withAck(raw, type, (ackId) => {
        const group = groupName(raw['group']);
        if (group === undefined) return invalid(type, ackId, 'group', 'a group name of 1–1024 characters');
        return ok({ type, group, ...ackField(ackId) });
      });
    case 'sendToGroup':
      return withAck(raw, type, (ackId) => {
        const group = groupName(raw['group']);
        if (group === undefined) return invalid(type, ackId, 'group', 'a group name of 1–1024 characters');
        const noEcho = raw['noEcho'] ?? false;
        if (typeof noEcho !== 'boolean') return invalid(type, ackId, 'noEcho', 'a boolean');
        const payload = parsePayload(raw, type, ackId);
        if (!payload.ok) return payload;
        return ok({ type, group, noEcho, ...payload.value, ...ackField(ackId) });
      });
    case 'event':
      return withAck(raw, type, (ackId) => {
        const event = raw['event'];
        if (typeof event !== 'string' || event === '') return invalid(type, ackId, 'event', 'a non-empty string');
        const payload = parsePayload(raw, type, ackId);
        if (!payload.ok) return payload;
        return ok({ type, event, ...payload.value, ...ackField(ackId) });
      });
    case 'sequenceAck': {
      const sequenceId = raw['sequenceId'];
      if (!isUint(sequenceId)) return invalid(type, undefined, 'sequenceId', 'a non-negative integer');
      return ok({ type, sequenceId });
    }
    case 'ping':
      return ok({ type });
    default:
      return fail({ code: 'unknown-type', type, message: `Unknown frame type "${type}".` });
  }
}

type Payload = { dataType: DataType; data: unknown };

function parsePayload(
  raw: Record<string, unknown>,
  type: string,
  ackId: number | undefined,
): { ok: true; value: Payload } | { ok: false; error: FrameError } {
  // The protocol defaults a missing dataType to json.
  const dataType = raw['dataType'] ?? 'json';
  const data = raw['data'];
  switch (dataType) {
    case 'json':
      if (data === undefined) return invalid(type, ackId, 'data', 'present');
      return { ok: true, value: { dataType: 'json', data } };
    case 'text':
      if (typeof data !== 'string') return invalid(type, ackId, 'data', 'a string for dataType text');
      return { ok: true, value: { dataType: 'text', data } };
    case 'binary':
      if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64.test(data)) {
        return invalid(type, ackId, 'data', 'base64 for dataType binary');
      }
      return { ok: true, value: { dataType: 'binary', data: Buffer.from(data, 'base64') } };
    default:
      return invalid(type, ackId, 'dataType', 'one of json, text, binary');
  }
}

/** Validates `ackId` first so that every later error on the frame can be acked. */
function withAck(
  raw: Record<string, unknown>,
  type: string,
  next: (ackId: number | undefined) => ParseResult,
): ParseResult {
  const ackId = raw['ackId'];
  if (ackId !== undefined && ackId !== null && !isUint(ackId)) {
    return invalid(type, undefined, 'ackId', 'a non-negative integer');
  }
  return next(ackId ?? undefined);
}

/** The group name when `value` is a valid one (shared with the protobuf parser). */
export function groupName(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_GROUP_NAME_LENGTH) return undefined;
  return value.trim() === '' ? undefined : value;
}

function isUint(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
