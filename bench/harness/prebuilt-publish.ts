import { connect, type Socket } from 'node:net';
import { readingPayload } from './bench-config.js';

/**
 * A load generator that does not become the limit: MQTT 3.1.1 PUBLISH packets (QoS 0, or 1) built once
 * and written many to one socket write. mqtt.js encodes and writes every packet on its own (a few
 * µs each), which capped the publisher near 27k readings/s while the consumers under test went
 * further. The broker and every consumer see the same packets mqtt.js would send.
 *
 * The packets of one cycle of readings (device k % devices, payload variant k % 50, as
 * `readingPayload`) sit back to back in one buffer, all the same length; a batch is a copy of the
 * next stretch with each packet's `ts` written in place (fixed width: the payload stays the same
 * size).
 */
export class PrebuiltPublisher {
  readonly #socket: Socket;
  readonly #cycle: Buffer;
  readonly #packetBytes: number;
  readonly #packets: number;
  /** Where the `ts` digits start inside each packet. */
  readonly #tsOffset: number;
  #next = 0;

  private constructor(socket: Socket, topics: readonly string[], qos: 0 | 1) {
    this.#socket = socket;
    this.#packets = lcm(topics.length, 50);
    const packets: Buffer[] = [];
    let tsOffset = -1;
    for (let k = 0; k < this.#packets; k++) {
      const payload = readingPayload(TS_PLACEHOLDER, k);
      // QoS 1: packet ids repeat every cycle; the broker answers each PUBACK at once and keeps no state.
      const packet = publishPacket(topics[k % topics.length]!, payload, qos === 1 ? k + 1 : undefined);
      const offset = packet.indexOf(TS_TEXT);
      if (tsOffset !== -1 && offset !== tsOffset) throw new Error('packets of one cycle differ in layout');
      tsOffset = offset;
      packets.push(packet);
    }
    this.#tsOffset = tsOffset;
    this.#packetBytes = packets[0]!.length;
    if (packets.some((p) => p.length !== this.#packetBytes)) throw new Error('topics must be of equal length');
    this.#cycle = Buffer.concat(packets);
  }

  /** Connects one MQTT 3.1.1 session (clean, Nagle off) and waits for its CONNACK. */
  static async connect(
    url: string,
    clientId: string,
    topics: readonly string[],
    qos: 0 | 1 = 0,
  ): Promise<PrebuiltPublisher> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port || 1883), noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => socket.write(connectPacket(clientId)));
      socket.once('data', (d: Buffer) => {
        // CONNACK: 0x20, length 2, session flags, return code 0 = accepted.
        if (d[0] === 0x20 && d[3] === 0) resolve();
        else reject(new Error(`broker refused the publisher (CONNACK ${d.subarray(0, 4).toString('hex')})`));
      });
    });
    // Keep-alive 60 s: a ping every 30 s; the broker's answers are read and ignored.
    const ping = setInterval(() => socket.write(PINGREQ), 30_000);
    ping.unref();
    socket.on('data', () => undefined);
    socket.on('close', () => clearInterval(ping));
    return new PrebuiltPublisher(socket, topics, qos);
  }

  /** Publishes the next `n` readings of the cycle, stamped `ts`, in one write. */
  publish(n: number, ts: number): void {
    if (n <= 0) return;
    const batch = Buffer.allocUnsafe(n * this.#packetBytes);
    let at = 0;
    let left = n;
    while (left > 0) {
      const take = Math.min(left, this.#packets - this.#next);
      this.#cycle.copy(batch, at, this.#next * this.#packetBytes, (this.#next + take) * this.#packetBytes);
      at += take * this.#packetBytes;
      left -= take;
      this.#next = (this.#next + take) % this.#packets;
    }
    const text = ts.toFixed(3);
    if (text.length !== TS_TEXT.length) throw new Error(`ts ${text} does not fit the prebuilt packets`);
    for (let p = this.#tsOffset; p < batch.length; p += this.#packetBytes) batch.write(text, p, 'latin1');
    this.#socket.write(batch);
  }

  /** Bytes the socket holds unsent: the broker is not keeping up. */
  get backlogBytes(): number {
    return this.#socket.writableLength;
  }
}

/** An epoch-ms `ts` of today's width with µs: 13 digits, a dot, 3 digits. */
const TS_PLACEHOLDER = 1_000_000_000_000;
const TS_TEXT = Buffer.from(TS_PLACEHOLDER.toFixed(3));
const PINGREQ = Buffer.from([0xc0, 0x00]);

function publishPacket(topic: string, payload: Buffer, packetId?: number): Buffer {
  const t = Buffer.from(topic);
  const body = Buffer.concat([u16(t.length), t, ...(packetId === undefined ? [] : [u16(packetId)]), payload]);
  return Buffer.concat([Buffer.from([packetId === undefined ? 0x30 : 0x32]), remainingLength(body.length), body]);
}

function connectPacket(clientId: string): Buffer {
  const id = Buffer.from(clientId);
  // Protocol name, level 4 (3.1.1), flags: clean session; keep-alive 60 s.
  const body = Buffer.concat([u16(4), Buffer.from('MQTT'), Buffer.from([0x04, 0x02]), u16(60), u16(id.length), id]);
  return Buffer.concat([Buffer.from([0x10]), remainingLength(body.length), body]);
}

function u16(n: number): Buffer {
  return Buffer.from([n >> 8, n & 0xff]);
}

function remainingLength(n: number): Buffer {
  const bytes: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    bytes.push(b);
  } while (n > 0);
  return Buffer.from(bytes);
}

function lcm(a: number, b: number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return (a / gcd(a, b)) * b;
}
