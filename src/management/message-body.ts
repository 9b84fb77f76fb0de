import type { DataType } from '../hub/types.js';

export type BodyResult =
  | { ok: true; dataType: DataType; data: unknown }
  | { ok: false; unsupportedType: boolean; detail: string };

/**
 * A send's body as hub message data, by content type, as the service maps it:
 * application/json → json (the parsed value), text/plain → text, application/octet-stream → binary.
 */
export function messageFromBody(contentType: string | undefined, body: unknown): BodyResult {
  const mediaType = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  switch (mediaType) {
    case 'application/json': {
      if (!isBytes(body) && typeof body !== 'string') {
        // A host that already parsed JSON hands over the value itself.
        return body === undefined ? invalid('A JSON body is required.') : { ok: true, dataType: 'json', data: body };
      }
      try {
        return { ok: true, dataType: 'json', data: JSON.parse(text(body)) };
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
