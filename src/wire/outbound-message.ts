import { deviceGroup, toWireReading, type Reading } from './reading.js';
import type { DataType, MessageCodec, MessageKind, MessageSource, OutboundMessage } from './message.js';

/**
 * The hub's OutboundMessage. `encoded(codec)` runs each codec once and hands every later caller
 * the same result. Almost every message meets one codec per transport, so the first result
 * sits in a slot and only a second codec pays for a Map.
 */
export class HubOutboundMessage implements OutboundMessage {
  #codecId: string | undefined = undefined;
  #encoded: unknown = undefined;
  #more: Map<string, unknown> | undefined = undefined;
  traceparent: string | undefined = undefined;
  fence: number | undefined = undefined;

  constructor(
    readonly source: MessageSource,
    readonly dataType: DataType,
    readonly data: unknown,
    readonly conflationKey: string | undefined = undefined,
    readonly kind: MessageKind = 'message',
  ) {}

  encoded<T>(codec: MessageCodec<T>): T {
    if (this.#codecId === codec.id) return this.#encoded as T;
    if (this.#codecId === undefined) {
      // Claimed before encoding: a codec that builds on another one's result (a WebSocket frame
      // around the JSON text) leaves that one to the map, and the slot to what connections ask for.
      this.#codecId = codec.id;
      try {
        this.#encoded = codec.encode(this);
      } catch (err) {
        this.#codecId = undefined;
        throw err;
      }
      return this.#encoded as T;
    }
    this.#more ??= new Map();
    if (this.#more.has(codec.id)) return this.#more.get(codec.id) as T;
    const value = codec.encode(this);
    this.#more.set(codec.id, value);
    return value;
  }
}

/**
 * The group message carrying one reading to `device:{tenantId}:{deviceId}`. Its data is the
 * contract's Reading without `traceparent`; readings of one device conflate with each other.
 */
export function readingMessage(
  reading: Reading,
  group = deviceGroup(reading.tenantId, reading.deviceId),
): HubOutboundMessage {
  const message = new HubOutboundMessage({ kind: 'group', group }, 'json', toWireReading(reading), group, 'reading');
  message.traceparent = reading.traceparent;
  message.fence = reading.fence;
  return message;
}
