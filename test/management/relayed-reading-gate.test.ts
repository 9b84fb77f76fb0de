import { describe, expect, it } from 'vitest';
import { RelayedReadingGate } from '../../src/management/relayed-reading-gate.js';

const reading = (tenantId: string, deviceId: string, seq: unknown) => ({ tenantId, deviceId, seq, ts: 1, receivedAt: 1, data: {} });

describe('RelayedReadingGate', () => {
  it('admits increasing seqs per device group and drops a seq at or below the last one relayed', () => {
    const gate = new RelayedReadingGate(10);
    expect(gate.admit('device:t:a', reading('t', 'a', 5))).toBe(true);
    expect(gate.admit('device:t:a', reading('t', 'a', 5))).toBe(false);
    expect(gate.admit('device:t:a', reading('t', 'a', 3))).toBe(false);
    expect(gate.admit('device:t:b', reading('t', 'b', 1))).toBe(true);
    expect(gate.admit('device:t:a', reading('t', 'a', 9))).toBe(true);
  });

  it('lets every other send through: other groups, data of another device, no usable seq', () => {
    const gate = new RelayedReadingGate(10);
    expect(gate.admit('device:t:a', reading('t', 'a', 5))).toBe(true);
    for (const [group, data] of [
      ['chat', reading('t', 'a', 1)],
      ['device:t:a', reading('t', 'other', 1)],
      ['device:t:a', reading('u', 'a', 1)],
      ['device:t:a', reading('t', 'a', 0)],
      ['device:t:a', reading('t', 'a', 2.5)],
      ['device:t:a', reading('t', 'a', '1')],
      ['device:t:a', 'text'],
      ['device:t:a', null],
    ] as const) {
      expect(gate.admit(group, data)).toBe(true);
      expect(gate.admit(group, data)).toBe(true);
    }
  });

  it('remembers at most maxGroups groups, forgetting the least recently relayed', () => {
    const gate = new RelayedReadingGate(2);
    gate.admit('device:t:a', reading('t', 'a', 5));
    gate.admit('device:t:b', reading('t', 'b', 5));
    gate.admit('device:t:a', reading('t', 'a', 6));
    gate.admit('device:t:c', reading('t', 'c', 5));
    // b was forgotten; a and c are remembered.
    expect(gate.admit('device:t:b', reading('t', 'b', 5))).toBe(true);
    expect(gate.admit('device:t:c', reading('t', 'c', 5))).toBe(false);
  });
});
