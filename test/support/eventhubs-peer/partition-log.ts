import type { Message } from 'rhea';
import type { StartPosition } from './selector-filter.js';

/** One stored event: the message as published, plus what the broker stamps on it. */
export interface StoredEvent {
  sequenceNumber: number;
  /** Byte position in the partition, as on the service; sent to clients as a string. */
  offset: number;
  enqueuedTime: number;
  partitionKey: string | undefined;
  message: Message;
}

/** An append-only, in-memory partition. Readers poll `events` from their own cursor. */
export class PartitionLog {
  readonly events: StoredEvent[] = [];
  private nextOffset = 0;
  private readonly listeners = new Set<() => void>();

  constructor(readonly id: string) {}

  append(message: Message, partitionKey: string | undefined, size: number): StoredEvent {
    const event: StoredEvent = {
      sequenceNumber: this.events.length,
      offset: this.nextOffset,
      enqueuedTime: Date.now(),
      partitionKey,
      message,
    };
    // Sizes are at least 1 so offsets stay unique and `offset > x` never skips a neighbour.
    this.nextOffset += Math.max(1, size);
    this.events.push(event);
    for (const listener of this.listeners) listener();
    return event;
  }

  /** Index of the first event a receiver starting at `position` gets. */
  startIndex(position: StartPosition): number {
    if (position.value === '@latest') return this.events.length;
    const bound = Number(position.value);
    const key = (e: StoredEvent): number =>
      position.field === 'offset' ? e.offset : position.field === 'sequence-number' ? e.sequenceNumber : e.enqueuedTime;
    const index = this.events.findIndex((e) => (position.inclusive ? key(e) >= bound : key(e) > bound));
    return index === -1 ? this.events.length : index;
  }

  /** Calls `listener` after every append; returns the unsubscribe function. */
  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get lastEvent(): StoredEvent | undefined {
    return this.events[this.events.length - 1];
  }
}
