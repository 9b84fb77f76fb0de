import { describe, expect, it } from 'vitest';
import type { BackplaneEnvelope } from '../../src/wire/backplane-codec.js';
import { MemoryBackplane, MemoryBackplaneBus } from '../../src/adapters/memory/memory-backplane.js';
import { Hub } from '../../src/realtime/hub.js';
import { HubOutboundMessage } from '../../src/wire/outbound-message.js';
import type { MessageCodec, OutboundMessage } from '../../src/wire/message.js';
import type { Reading } from '../../src/wire/reading.js';
import { MemoryConnection } from '../../src/adapters/memory/memory-connection.js';

const text = (data: string, group = 'g'): HubOutboundMessage =>
  new HubOutboundMessage({ kind: 'group', group }, 'text', data);
const reading = (seq: number, deviceId = 'dev-001'): Reading => ({
  tenantId: 'demo',
  deviceId,
  seq,
  ts: 1,
  receivedAt: 2,
  data: { t: seq },
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
});

/** A backplane pair standing in for two nodes: each hears only the other. */
/** A connection of tenant `demo`; `onMessage` sees each message as its reader reads it. */
const connection = (id: string, onMessage?: (m: OutboundMessage) => void): MemoryConnection =>
  new MemoryConnection({ id, tenantId: 'demo', userId: 'u', ...(onMessage ? { onMessage } : {}) });

/** Lets the memory backplane deliver what was published so far. */
const delivered = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Hub', () => {
  it('delivers a reading published right after join returns', () => {
    const hub = new Hub();
    const conn = connection('c1');
    hub.addConnection(conn);
    expect(hub.join('c1', 'device:demo:dev-001')).toBe(true);
    hub.publishReading(reading(1));
    expect(conn.received.map((m) => m.data)).toEqual([
      { tenantId: 'demo', deviceId: 'dev-001', seq: 1, ts: 1, receivedAt: 2, data: { t: 1 } },
    ]);
  });

  it('sends a device’s readings only to its group', () => {
    const hub = new Hub();
    const a = connection('a');
    const b = connection('b');
    hub.addConnection(a);
    hub.addConnection(b);
    hub.join('a', 'device:demo:dev-001');
    hub.join('b', 'device:demo:dev-002');
    hub.publishReading(reading(1, 'dev-001'));
    expect(a.received).toHaveLength(1);
    expect(b.received).toHaveLength(0);
  });

  it('stops delivering after leave', () => {
    const hub = new Hub();
    const conn = connection('c1');
    hub.addConnection(conn);
    hub.join('c1', 'g');
    hub.sendToGroup('g', text('one'));
    hub.leave('c1', 'g');
    hub.sendToGroup('g', text('two'));
    expect(conn.received.map((m) => m.data)).toEqual(['one']);
    expect(hub.groupsOf('c1')).toEqual([]);
  });

  it('encodes a group message once for 1000 connections', () => {
    const hub = new Hub();
    const wire: string[] = [];
    let encodes = 0;
    const codec: MessageCodec<string> = {
      id: 'counting',
      encode: (m) => {
        encodes++;
        return JSON.stringify(m.data);
      },
    };
    for (let i = 0; i < 1000; i++) {
      const conn = connection(`c${i}`, (m) => void wire.push(m.encoded(codec)));
      hub.addConnection(conn);
      hub.join(conn.id, 'device:demo:dev-001');
    }
    hub.publishReading(reading(7));
    expect(wire).toHaveLength(1000);
    expect(encodes).toBe(1);
    const expected = { tenantId: 'demo', deviceId: 'dev-001', seq: 7, ts: 1, receivedAt: 2, data: { t: 7 } };
    expect(new Set(wire)).toEqual(new Set([JSON.stringify(expected)]));
  });

  it('removeConnection leaves every group and drops groups left empty', () => {
    const hub = new Hub();
    const a = connection('a');
    const b = connection('b');
    hub.addConnection(a);
    hub.addConnection(b);
    for (let i = 0; i < 100; i++) hub.join('a', `g${i}`);
    hub.join('b', 'g0');
    expect(hub.groupCount).toBe(100);
    expect(hub.removeConnection('a')).toBe(true);
    expect(hub.groupCount).toBe(1);
    expect(hub.hasConnection('a')).toBe(false);
    hub.sendToGroup('g5', text('x'));
    expect(a.received).toHaveLength(0);
    hub.removeConnection('b');
    expect(hub.groupCount).toBe(0);
    expect(hub.connectionCount).toBe(0);
  });

  it('leave of the last member drops the group', () => {
    const hub = new Hub();
    hub.addConnection(connection('a'));
    hub.join('a', 'g');
    hub.leave('a', 'g');
    expect(hub.groupCount).toBe(0);
  });

  it('tells callers about unknown connections', () => {
    const hub = new Hub();
    expect(hub.join('nope', 'g')).toBe(false);
    expect(hub.leave('nope', 'g')).toBe(false);
    expect(hub.sendToConnection('nope', text('x'))).toBe(false);
    expect(hub.closeConnection('nope', 'kicked')).toBe(false);
    expect(hub.removeConnection('nope')).toBe(false);
    expect(hub.groupsOf('nope')).toEqual([]);
    expect(hub.groupCount).toBe(0);
  });

  it('refuses a second connection with the same id', () => {
    const hub = new Hub();
    hub.addConnection(connection('a'));
    expect(() => hub.addConnection(connection('a'))).toThrow();
  });

  it('join is idempotent: one delivery per message', () => {
    const hub = new Hub();
    const conn = connection('a');
    hub.addConnection(conn);
    hub.join('a', 'g');
    hub.join('a', 'g');
    hub.sendToGroup('g', text('x'));
    expect(conn.received).toHaveLength(1);
    expect(hub.groupsOf('a')).toEqual(['g']);
  });

  it('sends to all connections and to one connection', () => {
    const hub = new Hub();
    const a = connection('a');
    const b = connection('b');
    hub.addConnection(a);
    hub.addConnection(b);
    hub.sendToAll(new HubOutboundMessage({ kind: 'server' }, 'text', 'all'));
    expect(hub.sendToConnection('b', new HubOutboundMessage({ kind: 'server' }, 'text', 'just b'))).toBe(true);
    expect(a.received.map((m) => m.data)).toEqual(['all']);
    expect(b.received.map((m) => m.data)).toEqual(['all', 'just b']);
  });

  it('closeConnection removes the connection before closing it with the reason', () => {
    const hub = new Hub();
    const conn = connection('a');
    hub.addConnection(conn);
    hub.join('a', 'g');
    expect(hub.closeConnection('a', 'kicked')).toBe(true);
    expect(conn.closedWith).toBe('kicked');
    expect(hub.hasConnection('a')).toBe(false);
    expect(hub.groupCount).toBe(0);
  });

  it('closeAll closes every connection for shutdown', () => {
    const hub = new Hub();
    const conns = ['a', 'b', 'c'].map((id) => connection(id));
    for (const c of conns) {
      hub.addConnection(c);
      hub.join(c.id, 'g');
    }
    hub.closeAll('shutdown');
    expect(conns.map((c) => c.closedWith)).toEqual(['shutdown', 'shutdown', 'shutdown']);
    expect(hub.connectionCount).toBe(0);
    expect(hub.groupCount).toBe(0);
  });

  it('keeps delivering to the rest of a group when a member is removed during the send', () => {
    const hub = new Hub();
    const seen: string[] = [];
    const kicker = connection('kicker', () => {
      seen.push('kicker');
      hub.removeConnection('kicker');
    });
    hub.addConnection(kicker);
    hub.join('kicker', 'g');
    for (const id of ['x', 'y']) {
      hub.addConnection(connection(id, () => void seen.push(id)));
      hub.join(id, 'g');
    }
    hub.sendToGroup('g', text('m'));
    expect(seen.sort()).toEqual(['kicker', 'x', 'y']);
  });

  it('delivers group and broadcast sends to connections on another node through the backplane', async () => {
    const bus = new MemoryBackplaneBus();
    const node1 = new Hub({ backplane: bus.node() });
    const node2 = new Hub({ backplane: bus.node() });
    const local = connection('local');
    const remote = connection('remote');
    node1.addConnection(local);
    node2.addConnection(remote);
    node1.join('local', 'device:demo:dev-001');
    node2.join('remote', 'device:demo:dev-001');

    node1.publishReading(reading(3));
    node1.sendToAll(new HubOutboundMessage({ kind: 'server' }, 'text', 'hello'));
    await delivered();

    const summary = (c: MemoryConnection) =>
      c.received.map((m: OutboundMessage) => [m.source, m.conflationKey, m.kind, m.data]);
    expect(summary(remote)).toEqual(summary(local));
    expect(summary(remote)).toHaveLength(2);
    // The kind crosses nodes with the message: a reading stays a reading, a send stays a message.
    expect(remote.received.map((m) => m.kind)).toEqual(['reading', 'message']);
  });

  it("sends to a user's connections on every node, and to a connection wherever it is", async () => {
    const bus = new MemoryBackplaneBus();
    const [bp1, bp2] = [bus.node(), bus.node()];
    const node1 = new Hub({ backplane: bp1 });
    const node2 = new Hub({ backplane: bp2 });
    const aliceHere = new MemoryConnection({ id: 'alice-1', tenantId: 'demo', userId: 'alice' });
    const aliceThere = new MemoryConnection({ id: 'alice-2', tenantId: 'demo', userId: 'alice' });
    const bobThere = new MemoryConnection({ id: 'bob-1', tenantId: 'demo', userId: 'bob' });
    node1.addConnection(aliceHere);
    node2.addConnection(aliceThere);
    node2.addConnection(bobThere);

    node1.sendToUser('alice', new HubOutboundMessage({ kind: 'server' }, 'text', 'to alice'));
    expect(node1.sendToConnection('bob-1', new HubOutboundMessage({ kind: 'server' }, 'text', 'to bob'))).toBe(true);
    await delivered();

    expect(aliceHere.received.map((m) => m.data)).toEqual(['to alice']);
    expect(aliceThere.received.map((m) => m.data)).toEqual(['to alice']);
    expect(bobThere.received.map((m) => m.data)).toEqual(['to bob']);
  });

  it('says a connection send found no one only when there is no other node to ask', () => {
    const alone = new Hub();
    expect(alone.sendToConnection('nobody', text('x'))).toBe(false);
  });

  it('delivers backplane messages locally only, never back to the backplane', async () => {
    const bus = new MemoryBackplaneBus();
    const [bp1, bp2] = [bus.node(), bus.node()];
    const log: BackplaneEnvelope[] = [];
    for (const bp of [bp1, bp2]) {
      const publish = bp.publish.bind(bp);
      bp.publish = (e) => {
        log.push(e);
        publish(e);
      };
    }
    const node1 = new Hub({ backplane: bp1 });
    const node2 = new Hub({ backplane: bp2 });
    const member = connection('member');
    node2.addConnection(member);
    node2.join('member', 'g');
    node1.sendToGroup('g', text('once'));
    await delivered();
    expect(member.received.map((m) => m.data)).toEqual(['once']);
    expect(log).toHaveLength(1);
  });

  it('works with the single-node MemoryBackplane', () => {
    const hub = new Hub({ backplane: new MemoryBackplane() });
    const conn = connection('a');
    hub.addConnection(conn);
    hub.join('a', 'g');
    hub.sendToGroup('g', text('x'));
    expect(conn.received).toHaveLength(1);
  });
});

describe('Hub limits', () => {
  it('refuses a join past maxGroupsPerConnection; a group already joined stays joinable', () => {
    const hub = new Hub({ maxGroupsPerConnection: 2 });
    hub.addConnection(new MemoryConnection({ id: 'c1' }));
    expect(hub.tryJoin('c1', 'a')).toBe('joined');
    expect(hub.tryJoin('c1', 'b')).toBe('joined');
    expect(hub.tryJoin('c1', 'c')).toBe('group-limit');
    expect(hub.join('c1', 'c')).toBe(false);
    expect(hub.tryJoin('c1', 'a')).toBe('joined');
    expect(hub.tryJoin('nobody', 'a')).toBe('unknown-connection');
    hub.leave('c1', 'a');
    expect(hub.tryJoin('c1', 'c')).toBe('joined');
    expect(hub.groupsOf('c1').sort()).toEqual(['b', 'c']);
  });

  it('counts connections per user (within a tenant) and per tenant, and frees them on removal', () => {
    const hub = new Hub({ maxConnectionsPerUser: 1, maxConnectionsPerTenant: 2 });
    expect(hub.tryAddConnection(new MemoryConnection({ id: 'c1', tenantId: 't1', userId: 'u1' }))).toBeUndefined();
    expect(hub.tryAddConnection(new MemoryConnection({ id: 'c2', tenantId: 't1', userId: 'u1' }))).toBe('user');
    expect(hub.tryAddConnection(new MemoryConnection({ id: 'c3', tenantId: 't2', userId: 'u1' }))).toBeUndefined();
    expect(hub.tryAddConnection(new MemoryConnection({ id: 'c4', tenantId: 't1', userId: 'u2' }))).toBeUndefined();
    expect(hub.tryAddConnection(new MemoryConnection({ id: 'c5', tenantId: 't1', userId: 'u3' }))).toBe('tenant');
    expect(hub.hasConnection('c2')).toBe(false);
    hub.removeConnection('c1');
    expect(hub.connectionLimit('u1', 't1')).toBeUndefined();
    expect(hub.connectionLimit('u3', 't1')).toBeUndefined();
    // Connections without a user or tenant (anonymous Web PubSub tokens) count against nothing.
    expect(hub.tryAddConnection(new MemoryConnection({ id: 'c6' }))).toBeUndefined();
  });
});
