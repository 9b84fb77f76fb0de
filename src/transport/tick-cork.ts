import type { Duplex } from 'node:stream';

/** The tick a socket last had a frame written in (a number on the socket: no allocation per write). */
const LAST_TICK = Symbol('tickCork.lastTick');
type Tracked = Duplex & { [LAST_TICK]?: number };

/** Counts ticks that wrote frames; advanced by the end-of-tick callback. */
let tick = 1;
let scheduled = false;
/**
 * Sockets corked in this tick. Two arrays swap so that ending a tick allocates nothing, and a
 * write made while uncorking (none is expected: write callbacks and 'drain' run on later ticks)
 * lands in the next batch.
 */
let corked: Duplex[] = [];
let uncorking: Duplex[] = [];

/**
 * Writes a finished frame to `socket`; the frames a socket gets within one tick leave in at most
 * two writes, whatever their number. The first goes out at once (what a lone frame costs anyway:
 * one write, as the raw-ws anchor does); a second frame in the same tick corks the socket, and a
 * `process.nextTick` uncorks every socket corked in the tick, so Node hands the rest to the
 * kernel in one `writev` — µWebSockets' batching. Under load one MQTT chunk carries many readings,
 * and a member gets them in two syscalls instead of one each. Corking only from the second frame
 * keeps the lone-frame case free of the stream's buffering (an object and a fresh buffer array per
 * corked write). Everything goes through the socket's stream, so order with ws's own writes holds.
 * Returns `socket.write`'s answer (false: above the high-water mark).
 */
export function writeCorked(socket: Duplex, frame: Buffer): boolean {
  const s = socket as Tracked;
  if (s[LAST_TICK] !== tick) {
    s[LAST_TICK] = tick;
    if (!scheduled) {
      scheduled = true;
      process.nextTick(endTick);
    }
  } else if (socket.writableCorked === 0) {
    socket.cork();
    corked.push(socket);
  }
  return socket.write(frame);
}

function endTick(): void {
  scheduled = false;
  tick++;
  const batch = corked;
  corked = uncorking;
  uncorking = batch;
  for (let i = 0; i < batch.length; i++) batch[i]!.uncork();
  batch.length = 0;
}
