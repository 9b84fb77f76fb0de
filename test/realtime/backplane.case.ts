/**
 * The Backplane contract every implementation runs (the checkpoint-store pattern): what the hub relies
 * on when it scales out. Envelopes reach every other node (a group's: every node watching it), never
 * the sender, in publish order, with their data intact; a closed node neither sends nor receives;
 * two hubs on it act as one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backplane } from '../../src/realtime/backplane.js';
import type { BackplaneEnvelope } from '../../src/wire/backplane-codec.js';
import { Hub } from '../../src/realtime/hub.js';
import { MemoryConnection } from '../../src/adapters/memory/memory-connection.js';
import { HubOutboundMessage } from '../../src/wire/outbound-message.js';
import { eventually } from '../support/app-harness.js';

export interface BackplaneCluster {
  /** Nodes of one cluster, started and ready to carry envelopes. */
  readonly nodes: readonly Backplane[];
  /** Closes what the nodes left open and deletes what they stored. */
  dispose(): Promise<void>;
}

const group = (text: string, g = 'device:demo:dev-1'): BackplaneEnvelope => ({
  kind: 'group',
  group: g,
  message: { source: { kind: 'group', group: g }, dataType: 'text', data: text, conflationKey: undefined },
});

/** What each node's handlers were given, in order; every node watches the default group. */
async function record(nodes: readonly Backplane[]): Promise<BackplaneEnvelope[][]> {
  await Promise.all(nodes.map((node) => node.watch('device:demo:dev-1')));
  return nodes.map((node) => {
    const seen: BackplaneEnvelope[] = [];
    node.onMessage((e) => seen.push(e));
    return seen;
  });
}

const texts = (seen: BackplaneEnvelope[]): unknown[] => seen.map((e) => e.message.data);

export function runBackplaneContract(name: string, createCluster: (size: number) => Promise<BackplaneCluster>): void {
  describe(`${name} (Backplane contract)`, () => {
    let cluster: BackplaneCluster;
    let nodes: readonly Backplane[];
    beforeEach(async () => {
      cluster = await createCluster(3);
      nodes = cluster.nodes;
    });
    afterEach(async () => cluster.dispose());

    it('hands an envelope to every other node and never back to its sender', async () => {
      const [a, b] = nodes;
      const seen = await record(nodes);
      a!.publish(group('from-a'));
      await eventually(() => seen[1]!.length === 1 && seen[2]!.length === 1, 5000, 'b and c to get from-a');
      // Barrier: b answers only after it got from-a, so from-a would reach a before the answer.
      b!.publish(group('from-b'));
      await eventually(() => seen[0]!.length === 1, 5000, 'a to get from-b');
      expect(texts(seen[0]!)).toEqual(['from-b']);
      await eventually(() => seen[2]!.length === 2, 5000, 'c to get from-b');
      expect(texts(seen[1]!)).toEqual(['from-a']);
      expect(texts(seen[2]!)).toEqual(['from-a', 'from-b']);
    });

    it("keeps one publisher's order", async () => {
      const seen = await record(nodes);
      const sent = Array.from({ length: 200 }, (_, i) => `m${i}`);
      for (const text of sent) nodes[0]!.publish(group(text));
      await eventually(() => seen[1]!.length === sent.length, 5000, 'all 200 envelopes');
      expect(texts(seen[1]!)).toEqual(sent);
    });

    it('carries both kinds and every data type intact: json, text, binary bytes, source and conflation key', async () => {
      const seen = await record(nodes);
      const reading = {
        tenantId: 'demo',
        deviceId: 'dev-1',
        seq: 7,
        ts: 1,
        receivedAt: 2,
        data: { t: 21.5, nested: { ok: true, list: [1, 'two', null] } },
      };
      const bytes = Uint8Array.from([0, 1, 2, 253, 254, 255]);
      nodes[0]!.publish({
        kind: 'group',
        group: 'device:demo:dev-1',
        message: {
          source: { kind: 'group', group: 'device:demo:dev-1' },
          dataType: 'json',
          data: reading,
          conflationKey: 'device:demo:dev-1',
        },
      });
      nodes[0]!.publish({
        kind: 'all',
        message: { source: { kind: 'server' }, dataType: 'text', data: 'héllo ✓', conflationKey: undefined },
      });
      nodes[0]!.publish({
        kind: 'all',
        message: { source: { kind: 'server' }, dataType: 'binary', data: bytes, conflationKey: undefined },
      });
      await eventually(() => seen[1]!.length === 3, 5000, 'three envelopes');

      const [json, text, binary] = seen[1]!;
      expect(json).toEqual({
        kind: 'group',
        group: 'device:demo:dev-1',
        message: {
          source: { kind: 'group', group: 'device:demo:dev-1' },
          dataType: 'json',
          data: reading,
          conflationKey: 'device:demo:dev-1',
        },
      });
      expect(text).toMatchObject({
        kind: 'all',
        message: { source: { kind: 'server' }, dataType: 'text', data: 'héllo ✓' },
      });
      expect(text!.message.conflationKey).toBeUndefined();
      expect(binary!.message.dataType).toBe('binary');
      expect(binary!.message.data).toBeInstanceOf(Uint8Array);
      expect([...(binary!.message.data as Uint8Array)]).toEqual([...bytes]);
    });

    it('a closed node neither sends nor receives; the others go on', async () => {
      const [a, b, c] = nodes;
      const seen = await record(nodes);
      await a!.close();
      a!.publish(group('after-close'));
      b!.publish(group('to-all'));
      // c getting b's envelope is the barrier: a's would have gone out first, and a would have b's too.
      await eventually(() => seen[2]!.length >= 1, 5000, 'c to get to-all');
      c!.publish(group('from-c'));
      await eventually(() => seen[1]!.length >= 1, 5000, 'b to get from-c');
      expect(texts(seen[0]!)).toEqual([]);
      expect(texts(seen[1]!)).toEqual(['from-c']);
      expect(texts(seen[2]!)).toEqual(['to-all']);
    });

    it('a group envelope reaches only the nodes watching the group, from its watch resolving until its unwatch; other kinds reach every node', async () => {
      const [a, b, c] = nodes;
      const seen = nodes.map((node) => {
        const got: BackplaneEnvelope[] = [];
        node.onMessage((e) => got.push(e));
        return got;
      });
      await b!.watch('g-b');
      a!.publish(group('only-b', 'g-b'));
      a!.publish(group('nobody', 'g-none'));
      // Barrier: a broadcast after them reaches c (and b) after anything a sent c before it.
      a!.publish({
        kind: 'all',
        message: { source: { kind: 'server' }, dataType: 'text', data: 'all-1', conflationKey: undefined },
      });
      await eventually(() => seen[2]!.length === 1 && seen[1]!.length === 2, 5000, 'the broadcast on b and c');
      expect(texts(seen[1]!)).toEqual(['only-b', 'all-1']);
      expect(texts(seen[2]!)).toEqual(['all-1']);

      b!.unwatch('g-b');
      await c!.watch('g-b');
      a!.publish(group('only-c', 'g-b'));
      a!.publish({
        kind: 'user',
        userId: 'u',
        message: { source: { kind: 'server' }, dataType: 'text', data: 'user-2', conflationKey: undefined },
      });
      await eventually(() => seen[2]!.length === 3 && seen[1]!.length === 3, 5000, 'the user send on b and c');
      expect(texts(seen[1]!)).toEqual(['only-b', 'all-1', 'user-2']);
      expect(texts(seen[2]!)).toEqual(['all-1', 'only-c', 'user-2']);
      expect(seen[0]).toEqual([]);
    });

    it('two hubs watch a group while they have members of it: the last member leaving stops its traffic there', async () => {
      const hubA = new Hub({ backplane: nodes[0]! });
      const hubB = new Hub({ backplane: nodes[1]! });
      const member = new MemoryConnection({ id: 'member' });
      hubB.addConnection(member);
      hubB.join('member', 'g');
      await hubB.groupReady('g');
      hubA.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'while a member'));
      await eventually(() => member.received.length === 1, 5000, 'the send while a member');
      const seenByB: BackplaneEnvelope[] = [];
      nodes[1]!.onMessage((e) => seenByB.push(e));
      hubB.leave('member', 'g');
      hubA.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'after leaving'));
      hubA.sendToAll(new HubOutboundMessage({ kind: 'server' }, 'text', 'barrier'));
      await eventually(() => seenByB.length >= 1, 5000, 'the barrier on B');
      expect(texts(seenByB)).toEqual(['barrier']);
    });

    it('joins two hubs into one: a group send on either reaches members on both, each once', async () => {
      const hubA = new Hub({ backplane: nodes[0]! });
      const hubB = new Hub({ backplane: nodes[1]! });
      const onA = new MemoryConnection({ id: 'on-a' });
      const onB = new MemoryConnection({ id: 'on-b' });
      const elsewhere = new MemoryConnection({ id: 'elsewhere' });
      hubA.addConnection(onA);
      hubB.addConnection(onB);
      hubB.addConnection(elsewhere);
      hubA.join('on-a', 'g');
      hubB.join('on-b', 'g');
      hubB.join('elsewhere', 'other');
      await Promise.all([hubA.groupReady('g'), hubB.groupReady('g')]);

      hubA.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'from A'));
      hubB.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'from B'));
      hubA.sendToAll(new HubOutboundMessage({ kind: 'server' }, 'text', 'to all'));
      await eventually(
        () => onA.received.length === 3 && onB.received.length === 3 && elsewhere.received.length === 1,
        5000,
        'every send on both hubs',
      );

      const datas = (c: MemoryConnection) => c.received.map((m) => m.data);
      expect(new Set(datas(onA))).toEqual(new Set(['from A', 'from B', 'to all']));
      expect(new Set(datas(onB))).toEqual(new Set(['from A', 'from B', 'to all']));
      expect(datas(elsewhere)).toEqual(['to all']);
      // Each hub's own sends arrive first and at once; the other hub's keep their order.
      expect(datas(onA)[0]).toBe('from A');
      expect(datas(onB)[0]).toBe('from B');
    });
  });
}
