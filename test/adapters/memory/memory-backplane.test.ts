import { describe, expect, it } from 'vitest';
import { MemoryBackplane, MemoryBackplaneBus } from '../../../src/adapters/memory/memory-backplane.js';
import { Hub } from '../../../src/realtime/hub.js';
import { MemoryConnection } from '../../../src/adapters/memory/memory-connection.js';
import { HubOutboundMessage } from '../../../src/wire/outbound-message.js';
import { runBackplaneContract } from '../../realtime/backplane.case.js';

runBackplaneContract('MemoryBackplane', async (size) => {
  const bus = new MemoryBackplaneBus();
  const nodes = Array.from({ length: size }, () => bus.node());
  return { nodes, dispose: async () => void (await Promise.all(nodes.map((n) => n.close()))) };
});

describe('MemoryBackplane', () => {
  it('a node made without a bus is alone: its hub delivers locally and hears from no one', async () => {
    const alone = new Hub({ backplane: new MemoryBackplane() });
    const bus = new MemoryBackplaneBus();
    const other = new Hub({ backplane: bus.node() });
    const here = new MemoryConnection({ id: 'here' });
    const there = new MemoryConnection({ id: 'there' });
    alone.addConnection(here);
    other.addConnection(there);
    alone.join('here', 'g');
    other.join('there', 'g');

    alone.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'x'));
    await new Promise<void>((resolve) => queueMicrotask(resolve));

    expect(here.received.map((m) => m.data)).toEqual(['x']);
    expect(there.received).toEqual([]);
  });

  it('hands other nodes a copy: a receiver changing its data cannot change what others got', async () => {
    const bus = new MemoryBackplaneBus();
    const [a, b, c] = [bus.node(), bus.node(), bus.node()];
    const data = { n: 1 };
    const got: { n: number }[] = [];
    b.onMessage((e) => {
      const d = e.message.data as { n: number };
      d.n = 99;
      got.push(d);
    });
    c.onMessage((e) => got.push(e.message.data as { n: number }));
    a.publish({
      kind: 'all',
      message: { source: { kind: 'server' }, dataType: 'json', data, conflationKey: undefined },
    });
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(data).toEqual({ n: 1 });
    expect(got).toHaveLength(2);
    expect(got.map((d) => d.n).sort()).toEqual([1, 99]);
  });
});
