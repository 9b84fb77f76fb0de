import type { MqttClient } from 'mqtt';
import type { SinkResult } from '../../realtime/ingestion-source.js';

/**
 * Given to mqtt.js's `handleMessage` callback instead of acknowledging: mqtt.js then reads the next
 * packet without sending a PUBACK (it only passes the error on to its packet loop, which ignores
 * it); `SettledAcks` sends the PUBACK itself once the reading's outcome is known.
 */
export const DEFERRED = new Error('acknowledgement deferred until the reading is settled');

/** mqtt.js's packet writer: not part of its typings, used as its own acknowledgements use it. */
type PacketWriter = { _sendPacket(packet: object, cb?: () => void, cbStorePut?: () => void, noStore?: boolean): void };

/**
 * The QoS 1 acknowledgements of one MQTT connection whose readings' outcome was pending when
 * offered (`SinkResult.settled`: a seq or the cluster's redelivery window being asked). Each is sent
 * in the order the messages came, once its reading and every earlier one settled: a PUBACK for
 * an accepted one (or one dropped for good, e.g. `redelivered`), none for one refused as `fenced`
 * (the connection is dropped so the broker sends it again to whoever holds the session next).
 * Meanwhile mqtt.js reads on, so a round trip per reading does not cap ingestion (`room` bounds
 * how many wait). Nothing is sent on a later connection: its message ids are the broker's to
 * reuse, and the broker resends what was not acknowledged. Leans on mqtt.js internals (`DEFERRED`,
 * `_sendPacket`): test/adapters/mqtt/mqtt-lease-handover.test.ts fails if an upgrade moves them.
 */
export class SettledAcks {
  readonly #client: MqttClient;
  readonly #max: number;
  /** Settles in order: each deferred acknowledgement chains on the one before. */
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;
  #onRoom: (() => void) | undefined;

  /**
   * `max`: acknowledgements waiting at most before `room` asks the connection to wait. A broker
   * may have far more messages in flight (MQTT 5's receive maximum is 65 535 by default), and
   * each waits in the sink, which refuses what does not fit (`backlog`): the bound keeps well below.
   */
  constructor(client: MqttClient, max = 1000) {
    this.#client = client;
    this.#max = max;
  }

  /** Undefined while fewer than `max` wait; else resolves once one more may (read no packet until). */
  room(): Promise<void> | undefined {
    if (this.#waiting < this.#max) return undefined;
    return new Promise((resolve) => (this.#onRoom = resolve));
  }

  /** No acknowledgement waits: the next one may go out at once without overtaking another. */
  get idle(): boolean {
    return this.#waiting === 0;
  }

  /** Acknowledges `messageId` once `settled` (undefined: accepted) and every earlier one answered. */
  defer(messageId: number, settled: Promise<SinkResult> | undefined): void {
    const stream = this.#client.stream;
    this.#waiting++;
    this.#tail = this.#tail
      .then(() => settled)
      .then((result) => {
        this.#waiting--;
        const onRoom = this.#onRoom;
        this.#onRoom = undefined;
        onRoom?.();
        if (this.#client.stream !== stream || !this.#client.connected) return;
        if (result !== undefined && !result.accepted && result.reason === 'fenced') return this.dropConnection();
        (this.#client as unknown as PacketWriter)._sendPacket(
          { cmd: 'puback', messageId, reasonCode: 0 },
          undefined,
          undefined,
          true,
        );
      });
  }

  /** The broker sends what this connection did not acknowledge again, on the session's next one. */
  dropConnection(): void {
    (this.#client.stream as { destroy?: () => void }).destroy?.();
  }

  /** Resolves once every deferred acknowledgement was sent or given up. */
  drained(): Promise<void> {
    return this.#tail;
  }
}
