import type { Duplex } from 'node:stream';

/** The loop turn a socket was last corked in (a number on the socket: no allocation per write). */
const LAST_TURN = Symbol('tickCork.lastTurn');
type Tracked = Duplex & { [LAST_TURN]?: number };

/** Counts event-loop turns that wrote frames; advanced by the end-of-turn callback. */
let turn = 1;
let scheduled = false;
/**
 * Sockets corked in this turn. Two arrays swap so that ending a turn allocates nothing, and a
 * write made while uncorking lands in the next batch.
 */
let corked: Duplex[] = [];
let uncorking: Duplex[] = [];

/**
 * Writes a finished frame to `socket`; all the frames a socket gets within one turn of the event
 * loop leave in one write: the first frame of the turn corks the socket and a `setImmediate` —
 * after the turn's I/O callbacks — uncorks every socket corked in the turn, so Node hands each
 * socket's frames to the kernel in one `writev`, as µWebSockets batches. The window is the loop
 * turn, not the tick: mqtt.js hands each packet of a chunk to its handler in a tick of its own,
 * while a turn holds the whole chunk — and under load chunks grow, so batches grow with the load.
 * The syscall is most of a frame's cost: measured on 1000 loopback sockets, a lone corked frame
 * costs what a plain write costs (≈ 10 µs of CPU either way), two frames per turn ≈ 0.55× and four
 * ≈ 0.27× of a write each. Everything goes through the socket's stream, so order with ws's own
 * writes holds, and `end()` uncorks first. Returns `socket.write`'s answer (false: above the
 * high-water mark).
 */
export function writeCorked(socket: Duplex, frame: Buffer): boolean {
  const s = socket as Tracked;
  if (s[LAST_TURN] !== turn) {
    s[LAST_TURN] = turn;
    socket.cork();
    corked.push(socket);
    if (!scheduled) {
      scheduled = true;
      setImmediate(endTurn);
    }
  }
  return socket.write(frame);
}

function endTurn(): void {
  scheduled = false;
  turn++;
  const batch = corked;
  corked = uncorking;
  uncorking = batch;
  for (let i = 0; i < batch.length; i++) batch[i]!.uncork();
  batch.length = 0;
}
