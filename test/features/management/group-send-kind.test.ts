import { describe, expect, it } from 'vitest';
import { groupSendKind } from '../../../src/features/management/group-send-kind.js';

const reading = { tenantId: 't', deviceId: 'd', seq: 3, ts: 1, receivedAt: 2, data: { x: 1 } };

describe('groupSendKind', () => {
  it("is a reading only for a JSON Reading of exactly the group's device", () => {
    expect(groupSendKind('device:t:d', 'json', reading)).toBe('reading');
    expect(groupSendKind('device:t:d', 'json', { ...reading, data: {} })).toBe('reading');
  });

  it('is a message for anything else', () => {
    const cases: [string, 'json' | 'text' | 'binary', unknown][] = [
      ['ops', 'json', reading],
      ['device:t:other', 'json', reading],
      ['device:other:d', 'json', reading],
      ['device:t:d', 'text', JSON.stringify(reading)],
      ['device:t:d', 'binary', Buffer.from(JSON.stringify(reading))],
      ['device:t:d', 'json', { ...reading, extra: 1 }],
      ['device:t:d', 'json', { ...reading, seq: -1 }],
      ['device:t:d', 'json', { ...reading, seq: 1.5 }],
      ['device:t:d', 'json', { ...reading, seq: '3' }],
      ['device:t:d', 'json', { ...reading, ts: null }],
      ['device:t:d', 'json', { ...reading, data: [1] }],
      ['device:t:d', 'json', { ...reading, data: null }],
      ['device:t:d', 'json', [reading]],
      ['device:t:d', 'json', null],
      ['device:t:d', 'json', 'reading'],
    ];
    for (const [group, dataType, data] of cases)
      expect(groupSendKind(group, dataType, data), JSON.stringify([group, data])).toBe('message');
  });
});
