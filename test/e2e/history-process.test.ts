/**
 * History in the built hub as a real process on the embedded database: SIGTERM under ingest load
 * stores every accepted reading before the database closes, and a restart keeps the devices, their
 * last reading and their `seq`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PgliteConnector } from '../../src/adapters/pglite/pglite-connector.js';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from '../host/support/child-host.js';
import { freshDataDirectory } from '../support/embedded-database.js';
import { connectTelemetry, userToken } from '../support/app-harness.js';
import { DeviceFleet } from '../support/mqtt-device.js';

const data = freshDataDirectory();
afterAll(async () => {
  await killChildren();
  data.remove();
});

function startHub(...args: string[]): ChildHost {
  return new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0', ...args], {
    Database__DataDirectory: data.path,
  });
}

async function brokerUrl(hub: ChildHost): Promise<string> {
  const m = await hub.waitFor(/embedded mqtt broker listening[\s\S]*?"?url"?:\s*"(mqtt:\/\/[^"]+)"/, 20_000);
  return m[1]!.replace('localhost', '127.0.0.1');
}

async function storedReadings(): Promise<{ tenant: number; devices: { device_id: string; last_seq: number }[] }> {
  const connector = await PgliteConnector.open(data.path);
  try {
    return await connector.transaction(async (sql) => ({
      tenant: Number(
        (await sql.query<{ n: number }>(`select count(*)::int as n from readings where tenant_id = 'load'`)).rows[0]!.n,
      ),
      devices: (
        await sql.query<{ device_id: string; last_seq: number }>(
          `select device_id, last_seq::float8 as last_seq from devices where tenant_id = 'load' order by device_id`,
        )
      ).rows,
    }));
  } finally {
    await connector.close();
  }
}

describe('history in the hub process', () => {
  it('SIGTERM under ingest load: every accepted reading is in the database (count stored = count accepted)', async () => {
    // Big, slow batches: the writer surely holds accepted readings when the signal comes.
    const hub = startHub('--History:BatchSize=10000', '--History:FlushIntervalMilliseconds=5000');
    const url = await brokerUrl(hub);
    await hub.listeningUrl();
    const fleet = new DeviceFleet(url);
    const devices = Array.from({ length: 8 }, (_, i) => `pump-${i}`);
    await Promise.all(devices.map((d) => fleet.client('load', d)));
    let publishing = true;
    let published = 0;
    // About 8000 readings a second, paced: a flood the hub keeps up with, not a backlog in its sockets.
    const load = (async () => {
      for (let n = 0; publishing; n++) {
        for (const d of devices)
          fleet.publish(`tenants/load/devices/${d}/telemetry`, JSON.stringify({ n, flow: n % 97 }));
        published += devices.length;
        if (n % 10 === 9) await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await hub.waitFor(/devices restored/);
    // Let the load build up, then stop the hub in the middle of it.
    while (published < 10_000) await new Promise((r) => setTimeout(r, 20));
    hub.signal('SIGTERM');
    const { code } = await hub.exited;
    publishing = false;
    await load;
    await fleet.endAsync();
    expect(code).toBe(0);

    const accepted = Number(/ingestion stopped[\s\S]*?"?accepted"?: (\d+)/.exec(hub.output)?.[1]);
    expect(accepted).toBeGreaterThan(1000);
    expect(Number(/history flushed[\s\S]*?flushed: (\d+)/.exec(hub.output)?.[1])).toBeGreaterThan(0);
    expect(hub.output).not.toMatch(/history not stored|history queue full/);
    const stored = await storedReadings();
    expect(stored.tenant).toBe(accepted);
    expect(stored.devices.map((d) => d.device_id)).toEqual(devices);
  }, 90_000);

  it('after a restart the devices are listed with their last reading, and seq continues where it stopped', async () => {
    const before = await storedReadings();
    const hub = startHub();
    const url = await brokerUrl(hub);
    const base = await hub.listeningUrl();
    const token = await userToken('load');
    const list = (await (
      await fetch(`${base}/v1/devices?limit=500`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      items: { deviceId: string; last: { seq: number } }[];
    };
    expect(list.items.map((i) => [i.deviceId, i.last.seq])).toEqual(
      before.devices.map((d) => [d.device_id, d.last_seq]),
    );

    const socket = await connectTelemetry(base.replace('localhost', '127.0.0.1'), token);
    try {
      const ack = (await socket.emitWithAck('subscribe', { deviceId: 'pump-0' })) as {
        ok: boolean;
        last: { seq: number } | null;
      };
      expect(ack).toMatchObject({ ok: true, last: { seq: before.devices[0]!.last_seq } });
      const next = new Promise<{ seq: number }>((resolve) => socket.once('reading', resolve));
      const fleet = new DeviceFleet(url);
      await fleet.publishAsync('tenants/load/devices/pump-0/telemetry', JSON.stringify({ after: 'restart' }), {
        qos: 1,
      });
      expect((await next).seq).toBe(before.devices[0]!.last_seq + 1);
      await fleet.endAsync();
    } finally {
      socket.close();
    }
    hub.signal('SIGTERM');
    expect((await hub.exited).code).toBe(0);
  }, 60_000);
});
