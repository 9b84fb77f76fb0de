import type { HubConnection } from './hub-connection.js';
import type { OutboundMessage } from '../wire/message.js';
import { readingSeq } from '../wire/reading-fields.js';

/** What the hub hands a connection's messages of one group to while a gate is installed (Hub.tryJoinGated). */
export interface GroupGate {
  /** Takes one message of the group for this connection. False: the gate is done; the hub removes it. */
  admit(message: OutboundMessage): boolean;
}

/**
 * One connection's live messages of one device group during a catch-up. While the history is read
 * it holds them (at most `maxHeld`), so none is lost and none overtakes the replay. `open(floor)`
 * then sends the held ones the replay did not cover and, until a newer reading passes, drops
 * readings at or below the replay's newest seq (the throttle may release one late). Holding more
 * than `maxHeld` ends the catch-up instead: `onOverflow` (which answers the subscribe as truncated)
 * runs first, then everything held goes out and the stream is live.
 */
export class CatchUpGate implements GroupGate {
  readonly connection: HubConnection;
  readonly #maxHeld: number;
  readonly #onOverflow: () => void;
  #held: OutboundMessage[] | undefined = [];
  #floor: number | undefined = undefined;
  #overflowed = false;

  constructor(connection: HubConnection, maxHeld: number, onOverflow: () => void) {
    this.connection = connection;
    this.#maxHeld = maxHeld;
    this.#onOverflow = onOverflow;
  }

  /** The seq of the first live reading held, once one was (the replay must cover what came before it). */
  get firstHeldSeq(): number | undefined {
    for (const m of this.#held ?? []) {
      const seq = readingSeq(m);
      if (seq !== undefined) return seq;
    }
    return undefined;
  }

  /** The hold overflowed: the catch-up is over, its replay must not be sent. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  admit(message: OutboundMessage): boolean {
    const held = this.#held;
    if (held === undefined) return this.#pass(message);
    if (held.length < this.#maxHeld) {
      held.push(message);
      return true;
    }
    this.#overflowed = true;
    this.#held = undefined;
    this.#onOverflow();
    for (const m of held) this.connection.send(m);
    this.connection.send(message);
    return false;
  }

  /**
   * The replay (readings up to `floor`) has been sent: sends the held messages it did not cover.
   * False when the gate has nothing left to do and can go.
   */
  open(floor: number | undefined): boolean {
    const held = this.#held ?? [];
    this.#held = undefined;
    this.#floor = floor;
    for (const m of held) this.#pass(m);
    return this.#floor !== undefined;
  }

  #pass(message: OutboundMessage): boolean {
    const seq = readingSeq(message);
    if (this.#floor !== undefined && seq !== undefined) {
      if (seq <= this.#floor) return true;
      // seq only grows from here: nothing older can follow this one.
      this.#floor = undefined;
    }
    this.connection.send(message);
    return this.#floor !== undefined;
  }
}
