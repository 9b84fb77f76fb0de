/**
 * The PeerConnections contract every implementation runs: what the management API relies on to
 * reach a connection on another instance. A request reaches every other instance, never the
 * asker; the answers come back; an instance that is gone is not waited for.
 */
import { describe, expect, it } from 'vitest';
import { Hub } from '../../src/realtime/hub.js';
import { MemoryConnection } from '../../src/adapters/memory/memory-connection.js';
import { createManagementService } from '../../src/features/management/management-service.js';
import type { PeerConnections, PeerRequest } from '../../src/realtime/peer-connections.js';

export interface PeerCluster {
  readonly nodes: readonly PeerConnections[];
  /** Takes one node out: its subscription gone, as after a crash. */
  kill(index: number): Promise<void>;
  dispose(): Promise<void>;
}

export function runPeerConnectionsContract(name: string, createCluster: (size: number) => Promise<PeerCluster>): void {
  describe(`${name} (PeerConnections contract)`, () => {
    async function withCluster(size: number, test: (cluster: PeerCluster) => Promise<void>): Promise<void> {
      const cluster = await createCluster(size);
      try {
        await test(cluster);
      } finally {
        await cluster.dispose();
      }
    }

    it('a request reaches every other instance once, never the asker, and their answers come back', () =>
      withCluster(3, async ({ nodes }) => {
        const asked: [number, PeerRequest][] = [];
        nodes.forEach((node, i) => node.serve((request) => (asked.push([i, request]), { found: i === 2 })));
        const replies = await nodes[0]!.ask({ op: 'exists', connectionId: 'c-1' });
        expect(replies.map((r) => r.found).sort()).toEqual([false, true]);
        expect(asked.map(([i]) => i).sort()).toEqual([1, 2]);
        expect(asked[0]![1]).toEqual({ op: 'exists', connectionId: 'c-1' });
      }));

    it('an instance that is gone is not waited for: the others answer at once', () =>
      withCluster(3, async (cluster) => {
        cluster.nodes.forEach((node) => node.serve(() => ({ found: false })));
        await cluster.kill(2);
        const started = Date.now();
        expect(await cluster.nodes[0]!.ask({ op: 'members', group: 'g' })).toHaveLength(1);
        expect(Date.now() - started).toBeLessThan(1000);
      }));

    it("two hubs' management services act as one: join, list, check, send to and close a connection on the other instance", () =>
      withCluster(2, async ({ nodes }) => {
        const [hubA, hubB] = [new Hub(), new Hub()];
        const [onA, onB] = [
          createManagementService(hubA, { peers: nodes[0]! }),
          createManagementService(hubB, { peers: nodes[1]! }),
        ];
        const there = new MemoryConnection({ id: 'on-b', userId: 'u' });
        hubB.addConnection(there);
        hubA.addConnection(new MemoryConnection({ id: 'on-a' }));

        expect(await onA.addConnectionToGroup('g', 'on-b')).toBe('joined');
        expect(hubB.groupsOf('on-b')).toEqual(['g']);
        expect(await onA.addConnectionToGroup('g', 'on-a')).toBe('joined');
        expect((await onA.groupConnections('g')).map((m) => m.connectionId).sort()).toEqual(['on-a', 'on-b']);
        expect(await onA.connectionExists('on-b')).toBe(true);
        expect(await onA.addConnectionToGroup('g', 'nowhere')).toBe('unknown-connection');
        expect(await onA.connectionExists('nowhere')).toBe(false);
        expect(await onA.sendToConnection('nowhere', 'text', 'x')).toBe(false);

        await onA.removeConnectionFromGroup('g', 'on-b');
        expect(hubB.groupsOf('on-b')).toEqual([]);
        await onA.closeConnection('on-b');
        expect(there.closedWith).toBe('kicked');
        expect(await onB.connectionExists('on-b')).toBe(false);
      }));
  });
}
