import { describe, expect, it } from 'vitest';
import { PacketSizeGuard, PacketTooLargeError } from '../../../src/adapters/mqtt/packet-size-guard.js';

/** Feeds the chunks through a guard; resolves with what passed, or the error it failed with. */
async function feed(max: number, chunks: Buffer[]): Promise<{ passed: Buffer; error?: Error }> {
  const guard = new PacketSizeGuard(max);
  const out: Buffer[] = [];
  guard.on('data', (c: Buffer) => out.push(c));
  const error = await new Promise<Error | undefined>((resolve) => {
    guard.once('error', resolve);
    guard.once('end', () => resolve(undefined));
    for (const c of chunks) if (!guard.destroyed) guard.write(c);
    guard.end();
  });
  return { passed: Buffer.concat(out), ...(error ? { error } : {}) };
}

/** A QoS 0 PUBLISH with a `bytes`-long body after the fixed header (MQTT 3.1.1 §2.2). */
function publish(bytes: number): Buffer {
  const length: number[] = [];
  let n = bytes;
  do {
    length.push((n % 128) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.concat([Buffer.from([0x30, ...length]), Buffer.alloc(bytes)]);
}

describe('PacketSizeGuard', () => {
  it('passes packets up to the limit unchanged, however the stream is cut', async () => {
    const exact = publish(1000);
    const max = exact.length;
    const stream = Buffer.concat([exact, publish(10), exact]);
    const bytewise = [...stream].map((b) => Buffer.from([b]));
    expect((await feed(max, [stream])).passed.equals(stream)).toBe(true);
    const cut = await feed(max, bytewise);
    expect(cut.error).toBeUndefined();
    expect(cut.passed.equals(stream)).toBe(true);
  });

  it('fails at the fixed header of a packet one byte over the limit, before its body', async () => {
    const over = publish(1001);
    const { passed, error } = await feed(over.length - 1, [publish(5), over.subarray(0, 4)]);
    expect(error).toBeInstanceOf(PacketTooLargeError);
    expect((error as PacketTooLargeError).announcedBytes).toBe(over.length);
    // Nothing of the oversized packet was passed on.
    expect(passed.equals(publish(5))).toBe(true);
  });

  it('refuses a Remaining Length of more than four bytes', async () => {
    const { error } = await feed(1 << 30, [Buffer.from([0x30, 0x80, 0x80, 0x80, 0x80, 0x01])]);
    expect(error?.message).toMatch(/malformed/);
  });
});
