import { describe, expect, it } from 'vitest';
import { HubOutboundMessage, readingMessage } from '../../src/wire/outbound-message.js';
import type { MessageCodec } from '../../src/wire/message.js';

function countingCodec(id: string): MessageCodec<string> & { calls: number } {
  const codec = {
    id,
    calls: 0,
    encode: (m: { data: unknown }) => {
      codec.calls++;
      return `${id}:${JSON.stringify(m.data)}`;
    },
  };
  return codec;
}

describe('HubOutboundMessage', () => {
  it('runs each codec once, however often and in whatever order it is asked', () => {
    const message = new HubOutboundMessage({ kind: 'server' }, 'json', { a: 1 });
    const codecs = [countingCodec('sio'), countingCodec('wps'), countingCodec('wps-reliable')];
    for (let round = 0; round < 3; round++) {
      for (const codec of codecs) expect(message.encoded(codec)).toBe(`${codec.id}:{"a":1}`);
    }
    expect(codecs.map((c) => c.calls)).toEqual([1, 1, 1]);
  });

  it('defaults to no conflation key', () => {
    expect(new HubOutboundMessage({ kind: 'server' }, 'text', 'x').conflationKey).toBeUndefined();
  });
});

describe('readingMessage', () => {
  it('targets the device group, conflates per device and leaves traceparent out', () => {
    const message = readingMessage({
      tenantId: 'demo',
      deviceId: 'dev-001',
      seq: 42,
      ts: 1763800000000,
      receivedAt: 1763800000004,
      data: { temperature: 21.5 },
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    expect(message.source).toEqual({ kind: 'group', group: 'device:demo:dev-001' });
    expect(message.conflationKey).toBe('device:demo:dev-001');
    expect(message.dataType).toBe('json');
    expect(JSON.stringify(message.data)).toBe(
      '{"tenantId":"demo","deviceId":"dev-001","seq":42,"ts":1763800000000,' +
        '"receivedAt":1763800000004,"data":{"temperature":21.5}}',
    );
  });
});
