import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { connectionScopeProbe } from '../../support/connection-scope-probe.js';
import { eventually, startHarness, type Harness } from './harness.js';
import { openRaw, type RawClient } from './raw-client.js';

const JSON_PROTOCOL = 'json.webpubsub.azure.v1';
const RELIABLE = 'json.reliable.webpubsub.azure.v1';

let h: Harness | undefined;
const raws: RawClient[] = [];

afterEach(async () => {
  for (const r of raws.splice(0)) r.ws.terminate();
  await h?.close();
  h = undefined;
});

async function connect(harness: Harness, userId: string, protocol = JSON_PROTOCOL) {
  const client = await openRaw(await harness.clientUrl({ userId, tenantId: 'demo' }), protocol);
  raws.push(client);
  const id = (await client.next((f) => f['event'] === 'connected'))['connectionId'] as string;
  return { client, id };
}

describe('a Web PubSub connection’s service scope', () => {
  it('is created when the connection opens, with who connected, and disposed newest first when it closes', async () => {
    const probe = connectionScopeProbe();
    h = await startHarness({ scopes: probe.scopes });

    const { client, id } = await connect(h, 'alice');
    expect(probe.identities).toEqual([
      expect.objectContaining({ connectionId: id, transport: 'webpubsub', userId: 'alice', tenantId: 'demo' }),
    ]);

    client.ws.close();
    await eventually(() => probe.events.length === 4);
    expect(probe.events).toEqual([
      'create log alice',
      'create cache alice',
      'dispose cache alice',
      'dispose log alice',
    ]);
    expect(h.endpoint.openScopes).toBe(0);
  });

  it('is disposed when a connection’s socket drops', async () => {
    const probe = connectionScopeProbe();
    h = await startHarness({ scopes: probe.scopes });
    const { id } = await connect(h, 'alice');

    h.endpoint.terminateSocket(id);

    await eventually(() => probe.events.length === 4);
    expect(probe.events.slice(2)).toEqual(['dispose cache alice', 'dispose log alice']);
  });

  it('outlives a dropped socket while the reliable session waits, and ends with the session', async () => {
    const clock = new ManualClock();
    const probe = connectionScopeProbe();
    h = await startHarness({ scopes: probe.scopes, sessionRetentionMs: 200, clock });
    const { client, id } = await connect(h, 'alice', RELIABLE);

    h.endpoint.terminateSocket(id);
    await client.closed;
    expect(probe.events.filter((e) => e.startsWith('dispose'))).toEqual([]);

    clock.advance(200);
    await eventually(() => probe.events.length === 4);
    expect(probe.events.slice(2)).toEqual(['dispose cache alice', 'dispose log alice']);
  });

  it('is disposed when the server stops with clients connected', async () => {
    const probe = connectionScopeProbe();
    h = await startHarness({ scopes: probe.scopes });
    await connect(h, 'alice');
    await connect(h, 'bob');

    await h.endpoint.closeAll();

    expect(h.endpoint.openScopes).toBe(0);
    expect(probe.events.filter((e) => e.startsWith('dispose')).sort()).toEqual([
      'dispose cache alice',
      'dispose cache bob',
      'dispose log alice',
      'dispose log bob',
    ]);
    expect(probe.events.indexOf('dispose cache bob')).toBeLessThan(probe.events.indexOf('dispose log bob'));
  });

  it('is where the subscribe event takes the tenant from', async () => {
    // The scope supplies another tenant than the access token's: subscribe follows the scope.
    const probe = connectionScopeProbe({ tenantOverride: 'scoped' });
    h = await startHarness({ scopes: probe.scopes });
    const { client, id } = await connect(h, 'alice');

    client.send({ type: 'event', event: 'subscribe', ackId: 1, dataType: 'json', data: { deviceId: 'd1' } });
    expect(await client.next((f) => f['type'] === 'ack' && f['ackId'] === 1)).toMatchObject({ success: true });
    expect(h.hub.groupsOf(id)).toEqual(['device:scoped:d1']);
  });
});
