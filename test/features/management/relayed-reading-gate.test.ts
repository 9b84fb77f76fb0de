import { describe, expect, it } from 'vitest';
import { RelayedReadingGate } from '../../../src/features/management/relayed-reading-gate.js';

describe('RelayedReadingGate', () => {
  it('admits increasing seqs per device group and drops a seq at or below the last one relayed', () => {
    const gate = new RelayedReadingGate(10);
    expect(gate.admit('device:t:a', 5)).toBe(true);
    expect(gate.admit('device:t:a', 5)).toBe(false);
    expect(gate.admit('device:t:a', 3)).toBe(false);
    expect(gate.admit('device:t:b', 1)).toBe(true);
    expect(gate.admit('device:t:a', 9)).toBe(true);
  });

  it('remembers at most maxGroups groups, forgetting the least recently relayed', () => {
    const gate = new RelayedReadingGate(2);
    gate.admit('device:t:a', 5);
    gate.admit('device:t:b', 5);
    gate.admit('device:t:a', 6);
    gate.admit('device:t:c', 5);
    // b was forgotten; a and c are remembered.
    expect(gate.admit('device:t:b', 5)).toBe(true);
    expect(gate.admit('device:t:c', 5)).toBe(false);
  });
});
