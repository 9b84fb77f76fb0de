import { describe, expect, it } from 'vitest';
import { AckIdWindow } from '../../../src/adapters/webpubsub/ack-id-window.js';
import { ResendBuffer } from '../../../src/adapters/webpubsub/resend-buffer.js';

describe('ResendBuffer', () => {
  it('keeps unacknowledged frames in order and drops them on cumulative acks', () => {
    const buffer = new ResendBuffer(3, 100);
    for (let i = 1; i <= 3; i++) buffer.push(i, Buffer.from(`f${i}`));
    expect(buffer.full).toBe(true);
    expect([...buffer.frames()].map(String)).toEqual(['f1', 'f2', 'f3']);
    buffer.ack(2);
    expect(buffer.full).toBe(false);
    expect(buffer.count).toBe(1);
    expect(buffer.bytes).toBe(2);
    expect([...buffer.frames()].map(String)).toEqual(['f3']);
    buffer.ack(1); // older acks change nothing
    expect(buffer.count).toBe(1);
  });

  it('is full at the byte bound and compacts after many acks', () => {
    const buffer = new ResendBuffer(10_000, 10);
    buffer.push(1, Buffer.alloc(10));
    expect(buffer.full).toBe(true);
    buffer.ack(1);
    for (let i = 2; i < 5000; i++) {
      buffer.push(i, Buffer.alloc(1));
      buffer.ack(i);
    }
    expect(buffer.count).toBe(0);
    expect(buffer.bytes).toBe(0);
  });
});

describe('AckIdWindow', () => {
  it('remembers the most recent ackIds only', () => {
    const window = new AckIdWindow(2);
    window.add(1);
    window.add(2);
    window.add(3);
    expect([window.has(1), window.has(2), window.has(3)]).toEqual([false, true, true]);
  });
});
