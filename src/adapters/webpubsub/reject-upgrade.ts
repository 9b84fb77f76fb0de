import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { Errors, type ErrorKey } from '../../host/errors.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../../host/problem.js';

/** Answers a refused upgrade with a problem+json response and closes the socket. */
export function rejectUpgrade(
  socket: Duplex,
  key: ErrorKey,
  detail: string,
  where: { instance: string; traceId?: string | undefined },
  extra: { extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const definition = Errors[key];
  const body = Buffer.from(
    JSON.stringify(
      problem(definition, detail, { instance: where.instance, traceId: where.traceId ?? '' }, extra.extensions),
    ),
  );
  const head = [
    `HTTP/1.1 ${definition.status} ${STATUS_CODES[definition.status] ?? ''}`,
    `content-type: ${PROBLEM_CONTENT_TYPE}`,
    ...Object.entries(extra.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${body.length}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}
