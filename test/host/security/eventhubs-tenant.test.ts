import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventually, startApp, type RunningApp } from '../../support/app-harness.js';
import type { EventHubsPeer } from '../../support/eventhubs-peer/eventhubs-peer.js';
import { startPeer, subscribe, type Subscriber } from '../../e2e/eventhubs/e2e-support.js';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from '../support/child-host.js';

const running: { hub?: RunningApp; peer?: EventHubsPeer; subscribers: Subscriber[] } = { subscribers: [] };
afterEach(async () => {
  for (const s of running.subscribers.splice(0)) s.socket.close();
  await running.hub?.stop();
  await running.peer?.close();
  running.hub = undefined;
  running.peer = undefined;
  killChildren();
});
afterAll(killChildren);

async function hubReading(args: string[]): Promise<{ hub: RunningApp; peer: EventHubsPeer }> {
  const peer = await startPeer(1);
  running.peer = peer;
  const hub = await startApp([
    `--ConnectionStrings:eventhubs=${peer.connectionString}`,
    '--Ingestion:EventHubs:LoadBalancingIntervalSeconds=0.2',
    ...args,
  ]);
  running.hub = hub;
  return { hub, peer };
}

async function subscriber(hub: RunningApp, tenant: string, devices: string[]): Promise<Subscriber> {
  const s = await subscribe(hub, tenant, devices);
  running.subscribers.push(s);
  return s;
}

describe('issue 12 item 3: the tenant of an Event Hubs reading is configuration, never a property the device sets', () => {
  it('with a device → tenant map, an event claiming another tenant reaches only its mapped tenant; an unmapped device is dropped and counted', async () => {
    // Senders name their device in `deviceId` here (trusted), to show the tenant never follows tenant_id.
    const { hub, peer } = await hubReading([
      '--Ingestion:EventHubs:DeviceTenants=boiler-1=acme, boiler-2=globex',
      '--Ingestion:EventHubs:TrustSenderDeviceId=true',
    ]);
    const acme = await subscriber(hub, 'acme', ['boiler-1', 'intruder']);
    const globex = await subscriber(hub, 'globex', ['boiler-1', 'boiler-2', 'intruder']);

    // boiler-1 belongs to acme but writes globex into its properties; intruder is in no tenant.
    peer.injectEvent('0', Buffer.from('{"n":1}'), { properties: { deviceId: 'boiler-1', tenant_id: 'globex' } });
    peer.injectEvent('0', Buffer.from('{"n":2}'), { properties: { deviceId: 'intruder', tenant_id: 'acme' } });
    peer.injectEvent('0', Buffer.from('{"n":3}'), { properties: { deviceId: 'intruder', tenant_id: 'globex' } });
    peer.injectEvent('0', Buffer.from('{"n":4}'), { properties: { deviceId: 'boiler-2' } });

    await eventually(
      () => globex.of('boiler-2').length === 1 && acme.of('boiler-1').length === 1,
      10_000,
      'the mapped readings',
    );
    await eventually(
      () => hub.app.telemetry.pipeline.stats().dropped.bad_tenant_id === 2,
      5000,
      'the unmapped device counted',
    );
    expect(acme.readings).toEqual([
      expect.objectContaining({ tenantId: 'acme', deviceId: 'boiler-1', data: { n: 1 } }),
    ]);
    expect(globex.readings).toEqual([
      expect.objectContaining({ tenantId: 'globex', deviceId: 'boiler-2', data: { n: 4 } }),
    ]);
    expect(hub.app.telemetry.registry.last('globex', 'boiler-1')).toBeUndefined();
    expect(hub.app.telemetry.registry.last('acme', 'intruder')).toBeUndefined();
  });

  it('with one tenant per source, every event belongs to it whatever tenant_id it claims', async () => {
    const { hub, peer } = await hubReading([
      '--Ingestion:EventHubs:Tenant=acme',
      '--Ingestion:EventHubs:TrustSenderDeviceId=true',
    ]);
    const acme = await subscriber(hub, 'acme', ['meter-7']);
    const globex = await subscriber(hub, 'globex', ['meter-7']);
    peer.injectEvent('0', Buffer.from('{"n":1}'), { properties: { deviceId: 'meter-7', tenant_id: 'globex' } });
    await eventually(() => acme.readings.length === 1, 10_000, 'the reading at the configured tenant');
    expect(acme.readings[0]).toMatchObject({ tenantId: 'acme', deviceId: 'meter-7' });
    expect(globex.readings).toEqual([]);
  });

  it("issue 25 item 4: without IoT Hub's device id, a sender's deviceId is refused (counted, logged once per interval) unless TrustSenderDeviceId", async () => {
    const { hub, peer } = await hubReading(['--Ingestion:EventHubs:DeviceTenants=boiler-1=acme, boiler-2=globex']);
    const acme = await subscriber(hub, 'acme', ['boiler-1']);
    const globex = await subscriber(hub, 'globex', ['boiler-2']);

    // Anyone who can send to the event hub names acme's boiler-1 three times; then IoT Hub's
    // authenticated boiler-2 sends once (same partition: it arrives after the forgeries).
    for (let n = 1; n <= 3; n++)
      peer.injectEvent('0', Buffer.from(`{"forged":${n}}`), { properties: { deviceId: 'boiler-1' } });
    peer.injectEvent('0', Buffer.from('{"n":4}'), {
      annotations: { 'iothub-connection-device-id': 'boiler-2' },
      properties: { deviceId: 'boiler-1' },
    });

    await eventually(() => globex.readings.length === 1, 10_000, "the authenticated device's reading");
    expect(globex.readings[0]).toMatchObject({ tenantId: 'globex', deviceId: 'boiler-2', data: { n: 4 } });
    expect(acme.readings).toEqual([]);
    expect(hub.app.telemetry.registry.last('acme', 'boiler-1')).toBeUndefined();
    expect(hub.app.telemetry.pipeline.stats().dropped.untrusted_device_id).toBe(3);
    // The pipeline's throttled warning: one line for the three, naming the reason and the claimed device.
    const warned = hub.logs.filter((l) => l['msg'] === 'reading dropped' && l['reason'] === 'untrusted_device_id');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ deviceId: 'boiler-1', suppressed: 0 });
  });

  it('Event Hubs without a configured tenant stops start-up with exit 78 naming the key', async () => {
    const child = new ChildHost(MAIN, [
      '--environment=Development',
      ...EPHEMERAL,
      '--ConnectionStrings:eventhubs=Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=k;SharedAccessKey=v;EntityPath=e;UseDevelopmentEmulator=true',
    ]);
    expect((await child.exited).code).toBe(78);
    expect(child.output).toMatch(
      /Ingestion:EventHubs:Tenant: is required in Development when ConnectionStrings:eventhubs is set/,
    );
  });

  it('a malformed device → tenant map stops start-up with exit 78 naming the key', async () => {
    const child = new ChildHost(MAIN, [
      '--environment=Development',
      ...EPHEMERAL,
      '--Ingestion:EventHubs:DeviceTenants=boiler-1=acme,boiler-2',
    ]);
    expect((await child.exited).code).toBe(78);
    expect(child.output).toMatch(/Ingestion:EventHubs:DeviceTenants: 'boiler-2' is not device=tenant/);
  });
});
