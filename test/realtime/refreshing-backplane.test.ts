import { describe, expect, it } from 'vitest';
import { MemoryBackplaneBus } from '../../src/adapters/memory/memory-backplane.js';
import { RefreshingBackplane } from '../../src/realtime/refreshing-backplane.js';
import { runBackplaneContract } from './backplane.case.js';

runBackplaneContract('RefreshingBackplane over MemoryBackplane', async (size) => {
  const bus = new MemoryBackplaneBus();
  const nodes = Array.from({ length: size }, () => new RefreshingBackplane(bus.node(), async () => undefined));
  return { nodes, dispose: async () => void (await Promise.all(nodes.map((n) => n.close()))) };
});

describe('RefreshingBackplane', () => {
  it('watch resolves only once the group is subscribed and its shared state refreshed, in that order', async () => {
    const bus = new MemoryBackplaneBus();
    const [here, there] = [bus.node(), bus.node()];
    const seenAtRefresh: string[] = [];
    let finishRefresh!: () => void;
    const refreshing = new RefreshingBackplane(here, (group) => {
      // A reading published while the refresh reads must arrive live: the group is watched already.
      there.publish({
        kind: 'group',
        group,
        message: { source: { kind: 'group', group }, dataType: 'text', data: 'during', conflationKey: undefined },
      });
      return new Promise<void>((resolve) => (finishRefresh = resolve));
    });
    refreshing.onMessage((e) => seenAtRefresh.push(String(e.message.data)));
    let watched = false;
    const watch = refreshing.watch('device:demo:dev-1').then(() => (watched = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(watched).toBe(false);
    expect(seenAtRefresh).toEqual(['during']);
    finishRefresh();
    await watch;
    expect(watched).toBe(true);
  });
});
