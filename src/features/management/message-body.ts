import type { DataType } from '../../wire/message.js';
import { jsonTextTooDeep, jsonValueTooDeep, MAX_JSON_DEPTH } from '../../wire/json-depth.js';

export type BodyResult =
  | { ok: true; dataType: DataType; data: unknown }
  | { ok: false; unsupportedType: boolean; detail: string };

/**
 * A send's body as hub message data, by content type, as the service maps it:
 * application/json → json (the parsed value), text/plain → text, application/octet-stream → binary.
 * JSON nested deeper than MAX_JSON_DEPTH is refused: subscribers' encoders would overflow on it.
 */
export function messageFromBody(contentType: string | undefined, body: unknown): BodyResult {
  const mediaType = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  switch (mediaType) {
    case 'application/json': {
      if (!isBytes(body) && typeof body !== 'string') {
        // A host that already parsed JSON hands over the value itself.
        if (body === undefined) return invalid('A JSON body is required.');
        return jsonValueTooDeep(body) ? invalid(TOO_DEEP) : { ok: true, dataType: 'json', data: body };
      }
      const json = text(body);
      // Before parsing: the depth pass is linear and cheap, while parsing deep text is not.
      if (jsonTextTooDeep(json)) return invalid(TOO_DEEP);
      try {
        return { ok: true, dataType: 'json', data: JSON.parse(json) };
      } catch {
        return invalid('The body is not valid JSON.');
      }
    }
    case 'text/plain':
      return { ok: true, dataType: 'text', data: isBytes(body) || typeof body === 'string' ? text(body) : '' };
    case 'application/octet-stream':
      return { ok: true, dataType: 'binary', data: bytes(body) };
    default:
      return {
        ok: false,
        unsupportedType: true,
        detail: `Content-Type must be application/json, text/plain or application/octet-stream, not '${mediaType}'.`,
      };
  }
}

const TOO_DEEP = `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`;

function isBytes(body: unknown): body is Uint8Array {
  return body instanceof Uint8Array;
}

function text(body: Uint8Array | string): string {
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

function bytes(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.alloc(0);
}

function invalid(detail: string): BodyResult {
  return { ok: false, unsupportedType: false, detail };
}
