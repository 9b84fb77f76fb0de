import type { IncomingMessage } from 'node:http';

/** Thrown while reading when a body passes its limit: answered 413 by the endpoint. */
export class BodyTooLargeError extends Error {
  constructor(
    readonly limitBytes: number,
    what = 'The request body',
  ) {
    super(`${what} exceeds ${limitBytes} bytes.`);
    this.name = 'BodyTooLargeError';
  }
}

/** The client went away before its body ended: nobody is left to answer, and nothing was kept. */
export class UploadAbortedError extends Error {
  constructor() {
    super('The client closed the connection before the body ended.');
    this.name = 'UploadAbortedError';
  }
}

/**
 * The raw request body, chunk by chunk as it arrives, checking the limit on each read: the first
 * chunk that takes the total past `limitBytes` throws before it is handed on. A declared
 * Content-Length over the limit throws before anything is read.
 */
export async function* limitedBody(req: IncomingMessage, limitBytes: number): AsyncGenerator<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw new BodyTooLargeError(limitBytes);
  let total = 0;
  // Stopping early must leave the request (and so its socket) open: the 413 still has to be written.
  const chunks = { [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false }) } as AsyncIterable<Buffer>;
  try {
    for await (const chunk of chunks) {
      total += chunk.length;
      if (total > limitBytes) throw new BodyTooLargeError(limitBytes);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof BodyTooLargeError || !(req.destroyed || req.errored)) throw err;
    throw new UploadAbortedError();
  }
}
