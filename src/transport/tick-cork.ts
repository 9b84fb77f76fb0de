import type { Duplex } from 'node:stream';

/**
 * Sockets corked in this tick, uncorked together once the current synchronous work is done.
 * Two arrays swap so that a flush allocates nothing and a write made while flushing (none is
 * expected: write callbacks and 'drain' run on later ticks) lands in the next batch.
 */
let corked: Duplex[] = [];
let flushing: Duplex[] = [];
let scheduled = false;

/**
 * Writes a finished frame to `socket`; frames for one socket within one tick leave in one write.
 * The first write of a tick corks the socket and a `process.nextTick` uncorks every socket corked
 * in that tick, so Node hands each socket's frames to the kernel in one `writev`, as µWebSockets
 * batches. Under load one MQTT chunk carries many readings, and a member gets them in one
 * syscall instead of one each; at low rates a tick holds one frame and nothing changes but a
 * few µs of delay. Returns `socket.write`'s answer (false: above the high-water mark).
 */
export function writeCorked(socket: Duplex, frame: Buffer): boolean {
  if (socket.writableCorked === 0) {
    socket.cork();
    corked.push(socket);
    if (!scheduled) {
      scheduled = true;
      process.nextTick(uncorkAll);
    }
  }
  return socket.write(frame);
}

function uncorkAll(): void {
  scheduled = false;
  const batch = corked;
  corked = flushing;
  flushing = batch;
  for (let i = 0; i < batch.length; i++) batch[i]!.uncork();
  batch.length = 0;
}
