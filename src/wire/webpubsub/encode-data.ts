import type { DataType } from '../message.js';
import { readingToJson, type Reading } from '../reading.js';

/**
 * The JSON text of a message's `data` field: the value itself for json, a JSON string for text,
 * base64 for binary and for protobuf (the encoded Any), as the service sends them.
 */
export function encodeData(dataType: DataType, data: unknown): string {
  switch (dataType) {
    case 'json':
      return jsonText(data);
    case 'text':
      return JSON.stringify(typeof data === 'string' ? data : String(data));
    case 'binary':
    case 'protobuf':
      return `"${toBuffer(data).toString('base64')}"`;
  }
}

/**
 * A JSON value's text. A Reading goes through readingToJson so that only the contract's fields
 * reach subscribers (never its traceparent), whoever built the message.
 */
export function jsonText(data: unknown): string {
  if (isReading(data)) return readingToJson(data);
  return JSON.stringify(data) ?? 'null';
}

export function toBuffer(data: unknown): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  return Buffer.alloc(0);
}

function isReading(data: unknown): data is Reading {
  if (typeof data !== 'object' || data === null) return false;
  const r = data as Partial<Reading>;
  return (
    typeof r.tenantId === 'string' &&
    typeof r.deviceId === 'string' &&
    typeof r.seq === 'number' &&
    typeof r.receivedAt === 'number' &&
    typeof r.data === 'object'
  );
}
