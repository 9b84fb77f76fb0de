import type { ResponseState } from '../../host/pipeline/http-context.js';

/** A stored response: status, headers, body and when it was stored (for `Age`). */
export interface CachedResponse {
  status: number;
  headers: [string, string | string[]][];
  body: Buffer;
  storedAt: number;
}

/** One buffer: a 4-byte length, the JSON of status, headers and time, then the body bytes as they are. */
export function encodeCachedResponse(response: CachedResponse): Buffer {
  const meta = Buffer.from(JSON.stringify({ s: response.status, h: response.headers, t: response.storedAt }));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(meta.length);
  return Buffer.concat([head, meta, response.body]);
}

/** Undefined for bytes that are not a stored response (another version's format, say): a miss. */
export function decodeCachedResponse(bytes: Buffer): CachedResponse | undefined {
  try {
    const length = bytes.readUInt32BE(0);
    const meta = JSON.parse(bytes.subarray(4, 4 + length).toString()) as {
      s: number;
      h: [string, string | string[]][];
      t: number;
    };
    return { status: meta.s, headers: meta.h, body: bytes.subarray(4 + length), storedAt: meta.t };
  } catch {
    return undefined;
  }
}

/** The buffered body of a response, or undefined when it has none that can be stored (a stream). */
export function bufferedBody(response: ResponseState): Buffer | undefined {
  const body = response.body;
  if (typeof body === 'string') return Buffer.from(body);
  if (Buffer.isBuffer(body)) return body;
  return undefined;
}
