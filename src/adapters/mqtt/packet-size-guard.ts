import { Transform, type TransformCallback } from 'node:stream';

/** Raised (and the connection destroyed) when a packet announces more bytes than allowed. */
export class PacketTooLargeError extends Error {
  readonly code = 'MQTT_PACKET_TOO_LARGE';
  constructor(
    readonly announcedBytes: number,
    readonly maxBytes: number,
  ) {
    super(`mqtt packet of ${announcedBytes} bytes exceeds ${maxBytes}`);
    this.name = 'PacketTooLargeError';
  }
}

/**
 * Passes an MQTT byte stream through unchanged while reading each packet's fixed header; a packet
 * whose size (fixed header + Remaining Length) exceeds `maxBytes` fails the stream as soon as its
 * length is known, before its body is read, so no parser ever buffers it. Neither aedes nor
 * mqtt-packet has such a limit. Chunks are forwarded as they are: no copies on the hot path.
 */
export class PacketSizeGuard extends Transform {
  readonly #maxBytes: number;
  /** Bytes of the current packet's body still to skip. */
  #bodyLeft = 0;
  /** Fixed-header bytes seen of the packet being started (0 = expecting the type byte). */
  #headerBytes = 0;
  #length = 0;
  #multiplier = 1;

  constructor(maxBytes: number) {
    super();
    this.#maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#bodyLeft > 0) {
        const skip = Math.min(this.#bodyLeft, chunk.length - i);
        this.#bodyLeft -= skip;
        i += skip;
        continue;
      }
      const byte = chunk[i++]!;
      if (this.#headerBytes++ === 0) continue; // packet type and flags
      // Remaining Length: up to four 7-bit groups, least significant first (MQTT 3.1.1 §2.2.3).
      this.#length += (byte & 0x7f) * this.#multiplier;
      this.#multiplier *= 128;
      const size = this.#headerBytes + this.#length;
      if (size > this.#maxBytes) return done(new PacketTooLargeError(size, this.#maxBytes));
      if (byte & 0x80) {
        if (this.#headerBytes === 5) return done(new Error('malformed mqtt remaining length'));
        continue;
      }
      this.#bodyLeft = this.#length;
      this.#headerBytes = 0;
      this.#length = 0;
      this.#multiplier = 1;
    }
    done(null, chunk);
  }
}
