import type { Duplex } from 'node:stream';

/**
 * Writes a complete response on a socket whose client may still be sending (an oversized body or
 * header block), then closes gracefully. Closing a socket with unread input makes the kernel send
 * a reset, and a client that gets it before reading loses the answer; so the write side is ended
 * (FIN after the response) while whatever still arrives is read and dropped, until the client
 * closes or `lingerMs` passes. `drain` keeps the bytes flowing when a request stream sits between
 * the socket and us (it pauses the socket when nobody reads it).
 */
export function answerAndClose(
  socket: Duplex,
  response: Buffer,
  options: { drain?: NodeJS.ReadableStream; lingerMs: number },
): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), options.lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', () => socket.destroy());
  socket.on('end', () => socket.destroy());
  options.drain?.on('data', discard);
  options.drain?.resume();
  socket.on('data', discard);
  socket.resume();
  if (socket.writable) socket.end(response);
}

function discard(): void {}
