import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ResponseState } from '../pipeline/http-context.js';

/** Answers an upgrade request that the pipeline refused (401, 404, 429 …) and closes the socket. */
export function writeRawResponse(socket: Duplex, response: ResponseState): void {
  let body = response.body;
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) {
    // A refused upgrade answers with a small problem; a stream has no place on this socket.
    body.destroy();
    body = null;
  }
  if (!socket.writable) return;
  socket.end(rawResponseBytes(response.status, response.headers, body));
}

/** A whole HTTP/1.1 response with `connection: close`, for writing straight to a socket. */
export function rawResponseBytes(
  status: number,
  headers: Iterable<readonly [string, string | string[]]>,
  body: string | Buffer | null,
): Buffer {
  const bytes = body === null ? Buffer.alloc(0) : Buffer.from(body);
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [name, value] of headers) {
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  lines.push(`content-length: ${bytes.length}`, 'connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n')), bytes]);
}
