import { afterEach, describe, expect, it } from 'vitest';
import { MemoryHistory } from '../../../src/adapters/memory/memory-history.js';
import { CatchUp } from '../../../src/realtime/catch-up.js';
import { HubOutboundMessage } from '../../../src/wire/outbound-message.js';
import { eventually, reading, startHarness, type Harness } from './harness.js';
import { openRaw, type RawClient } from './raw-client.js';

const RELIABLE = 'json.reliable.webpubsub.azure.v1';

let h: Harness | undefined;
const raws: RawClient[] = [];

afterEach(async () => {
  for (const r of raws.splice(0)) r.ws.terminate();
  await h?.close();
  h = undefined;
});

/** A harness whose hub keeps what it publishes in a MemoryHistory, which recovery replays from. */
async function start(max = 100) {
  const history = new MemoryHistory();
  h = await startHarness({ catchUpFor: (hub) => new CatchUp({ hub, history, max }) });
  const harness = h;
  const publish = (deviceId: string, seq: number) => {
    const r = reading(deviceId, seq);
    history.record(r);
    harness.hub.publishReading(r);
  };
  return { harness, publish };
}

async function reliable(harness: Harness) {
  const c = await openRaw(await harness.clientUrl({ userId: 'u', tenantId: 'demo' }), RELIABLE);
  raws.push(c);
  const connected = await c.next((f) => f['event'] === 'connected');
  return {
    c,
    id: connected['connectionId'] as string,
    token: connected['reconnectionToken'] as string,
  };
}

async function join(c: RawClient, group: string, ackId: number) {
  c.send({ type: 'joinGroup', group, ackId });
  await c.next((f) => f['ackId'] === ackId);
}

/** Cuts the socket as the network would and waits until the endpoint holds the session without one. */
async function cut(harness: Harness, id: string) {
  harness.endpoint.terminateSocket(id);
  await eventually(() => harness.endpoint.connection(id)?.socket === undefined);
}

async function recover(harness: Harness, id: string, token: string) {
  const again = await openRaw(
    `${harness.baseUrl.replace('http', 'ws')}/client/hubs/telemetry?awps_connection_id=${encodeURIComponent(id)}&awps_reconnection_token=${encodeURIComponent(token)}`,
    RELIABLE,
  );
  raws.push(again);
  return again;
}

/** Data messages as [sequenceId, group, what they carry]. */
const messages = (c: RawClient) =>
  c.frames
    .filter((f) => f['type'] === 'message')
    .map((f) => {
      const data = f['data'] as { deviceId?: string; seq?: number; note?: string };
      return [
        f['sequenceId'],
        f['group'] ?? f['from'],
        data.seq === undefined ? data.note : `${data.deviceId}/${data.seq}`,
      ];
    });

describe('reliable recovery replays what the outbox held back, from the history', () => {
  it('resends, then other queued messages, then each device’s held readings in seq order, sequence ids dense', async () => {
    const { harness, publish } = await start();
    const { c, id, token } = await reliable(harness);
    await join(c, 'device:demo:d', 1);
    await join(c, 'device:demo:e', 2);
    harness.hub.join(id, 'notes'); // a group that is not a device's: its messages are not readings
    publish('d', 1);
    await eventually(() => messages(c).length === 1);

    await cut(harness, id);
    for (let seq = 2; seq <= 6; seq++) publish('d', seq);
    for (let seq = 1; seq <= 3; seq++) publish('e', seq);
    for (const note of ['x', 'y'])
      harness.hub.sendToGroup('notes', new HubOutboundMessage({ kind: 'group', group: 'notes' }, 'json', { note }));

    const again = await recover(harness, id, token);
    await eventually(() => messages(again).length === 11);
    expect(again.frames[0]).toMatchObject({ type: 'system', event: 'connected', connectionId: id });
    expect(messages(again)).toEqual([
      // Never acknowledged: sent again (d/2 went out as the socket died).
      [1, 'device:demo:d', 'd/1'],
      [2, 'device:demo:d', 'd/2'],
      [3, 'notes', 'x'],
      [4, 'notes', 'y'],
      [5, 'device:demo:d', 'd/3'],
      [6, 'device:demo:d', 'd/4'],
      [7, 'device:demo:d', 'd/5'],
      [8, 'device:demo:d', 'd/6'],
      [9, 'device:demo:e', 'e/1'],
      [10, 'device:demo:e', 'e/2'],
      [11, 'device:demo:e', 'e/3'],
    ]);
    // No summary: nothing was missed.
    expect(again.frames.filter((f) => f['from'] === 'server')).toEqual([]);

    publish('d', 7);
    await eventually(() => messages(again).length === 12);
    expect(messages(again)[11]).toEqual([12, 'device:demo:d', 'd/7']);
  });

  it('does not rejoin a device group the session left while it had no socket', async () => {
    const { harness, publish } = await start();
    const { c, id, token } = await reliable(harness);
    await join(c, 'device:demo:d', 1);
    publish('d', 1);
    await eventually(() => messages(c).length === 1);

    await cut(harness, id);
    for (let seq = 2; seq <= 4; seq++) publish('d', seq);
    harness.hub.leave(id, 'device:demo:d');
    publish('d', 5);

    const again = await recover(harness, id, token);
    await eventually(() => messages(again).length === 3);
    // What was queued while it was a member goes out as before (the newest); nothing is replayed.
    expect(messages(again).map((m) => m[2])).toEqual(['d/1', 'd/2', 'd/4']);
    expect(harness.hub.groupsOf(id)).toEqual([]);
    publish('d', 6);
    again.send({ type: 'ping' });
    await again.next((f) => f['type'] === 'pong');
    expect(messages(again)).toHaveLength(3);
  });

  it('past Hub:CatchUpMax: the newest, after a catch-up summary saying truncated', async () => {
    const { harness, publish } = await start(3);
    const { c, id, token } = await reliable(harness);
    await join(c, 'device:demo:d', 1);
    publish('d', 1);
    await eventually(() => messages(c).length === 1);

    await cut(harness, id);
    for (let seq = 2; seq <= 10; seq++) publish('d', seq);

    const again = await recover(harness, id, token);
    await eventually(() => messages(again).length === 6);
    expect(messages(again)).toEqual([
      [1, 'device:demo:d', 'd/1'],
      [2, 'device:demo:d', 'd/2'],
      [3, 'server', undefined],
      [4, 'device:demo:d', 'd/8'],
      [5, 'device:demo:d', 'd/9'],
      [6, 'device:demo:d', 'd/10'],
    ]);
    expect(again.frames.find((f) => f['from'] === 'server')!['data']).toEqual({
      catchUp: { deviceId: 'd', since: 2, last: null, replayed: 3, truncated: true },
    });
  });
});
