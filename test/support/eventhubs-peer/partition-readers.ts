import rhea, { type Connection, type Message, type Sender } from 'rhea';
import { linkProperty, refuse } from './link-attach.js';
import type { PartitionLog, StoredEvent } from './partition-log.js';
import type { StartPosition } from './selector-filter.js';

/** One open receiver link reading a partition for a consumer group. */
interface Reader {
  sender: Sender;
  log: PartitionLog;
  consumerGroup: string;
  epoch: number | undefined;
  /** `com.microsoft:receiver-name`: the SDK sends its processor (owner) id there. */
  receiverName: string | undefined;
  cursor: number;
  unsubscribe(): void;
}

export interface ReaderInfo {
  partitionId: string;
  consumerGroup: string;
  epoch: number | undefined;
  receiverName: string | undefined;
}

/**
 * The client receiver links reading partitions. Each sends from its cursor as far as its credit goes,
 * again on new credit and on every append. Epochs (`com.microsoft:epoch`, which the SDK sets to 0 when
 * given a checkpoint store) follow the service: per partition and consumer group the newest receiver with
 * the highest epoch wins and the others are detached with `amqp:link:stolen`; the SDK's load balancer
 * relies on that detach to stop reading a partition another instance took over.
 */
export class PartitionReaders {
  private readonly readers = new Map<Sender, Reader>();

  open(sender: Sender, log: PartitionLog, consumerGroup: string, position: StartPosition): void {
    const epochValue = linkProperty(sender, 'com.microsoft:epoch');
    const reader: Reader = {
      sender,
      log,
      consumerGroup: consumerGroup.toLowerCase(),
      epoch: epochValue === undefined || epochValue === null ? undefined : Number(epochValue),
      receiverName: linkProperty(sender, 'com.microsoft:receiver-name') as string | undefined,
      cursor: log.startIndex(position),
      unsubscribe: log.onAppend(() => this.pump(reader)),
    };
    if (!this.takeOver(reader)) return;
    this.readers.set(sender, reader);
    this.pump(reader);
  }

  /** The link got credit. */
  onCredit(sender: Sender): void {
    const reader = this.readers.get(sender);
    if (reader) this.pump(reader);
  }

  forget(sender: Sender | undefined): void {
    const reader = sender && this.readers.get(sender);
    if (!reader) return;
    reader.unsubscribe();
    this.readers.delete(sender);
  }

  forgetConnection(connection: Connection): void {
    for (const reader of [...this.readers.values()])
      if (reader.sender.connection === connection) this.forget(reader.sender);
  }

  list(): ReaderInfo[] {
    return [...this.readers.values()].map((r) => ({
      partitionId: r.log.id,
      consumerGroup: r.consumerGroup,
      epoch: r.epoch,
      receiverName: r.receiverName,
    }));
  }

  clear(): void {
    for (const reader of this.readers.values()) reader.unsubscribe();
    this.readers.clear();
  }

  private pump(reader: Reader): void {
    while (reader.cursor < reader.log.events.length && reader.sender.sendable()) {
      reader.sender.send(toWire(reader.log.events[reader.cursor++]!));
    }
  }

  private takeOver(reader: Reader): boolean {
    if (reader.epoch === undefined) return true;
    for (const other of [...this.readers.values()]) {
      if (other.log !== reader.log || other.consumerGroup !== reader.consumerGroup || other.epoch === undefined)
        continue;
      if (other.epoch > reader.epoch) {
        reader.unsubscribe();
        refuse(reader.sender, 'amqp:link:stolen', `a receiver with epoch ${other.epoch} owns the partition`);
        return false;
      }
      this.forget(other.sender);
      refuse(other.sender, 'amqp:link:stolen', `a receiver with epoch ${reader.epoch} took the partition`);
    }
    return true;
  }
}

/** The message as a reader receives it: the published message plus the broker's annotations. */
function toWire(event: StoredEvent): Message {
  const annotations: Record<string, unknown> = {
    ...event.message.message_annotations,
    'x-opt-sequence-number': rhea.types.wrap_long(event.sequenceNumber),
    'x-opt-offset': String(event.offset),
    'x-opt-enqueued-time': new Date(event.enqueuedTime),
  };
  if (event.partitionKey !== undefined) annotations['x-opt-partition-key'] = event.partitionKey;
  return { ...event.message, message_annotations: annotations };
}
