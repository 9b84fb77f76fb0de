import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ResponseState } from '../pipeline/http-context.js';

/** Answers an upgrade request that the pipeline refused (401, 404, 429 …) and closes the socket. */
export function writeRawResponse(socket: Duplex, response: ResponseState): void {
  if (!socket.writable) return;
  const body = response.body === null ? Buffer.alloc(0) : Buffer.from(response.body);
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`];
  for (const [name, value] of response.headers) {
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  lines.push(`content-length: ${body.length}`, 'connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), body]));
}
