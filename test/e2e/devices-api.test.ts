import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { DeviceFleet } from '../support/mqtt-device.js';

type Page = {
  items: { deviceId: string; lastSeen: number; last: { seq: number; data: Record<string, unknown> } | null }[];
  nextCursor: string | null;
};

describe('GET /v1/devices', () => {
  let hub: RunningApp;
  let device: DeviceFleet;

  beforeAll(async () => {
    hub = await startApp();
    device = new DeviceFleet(hub.brokerUrl!);
  });
  afterAll(async () => {
    await device?.endAsync();
    await hub?.stop();
  });

  async function publish(tenant: string, ids: string[]): Promise<void> {
    for (const id of ids)
      await device.publishAsync(`tenants/${tenant}/devices/${id}/telemetry`, JSON.stringify({ v: id }), { qos: 1 });
    await eventually(() => ids.every((id) => hub.app.telemetry.registry.last(tenant, id)), 3000, 'devices registered');
  }

  async function get(tenant: string, query: string): Promise<{ status: number; body: unknown; type: string | null }> {
    const res = await fetch(`${hub.url}/v1/devices${query}`, {
      headers: { authorization: `Bearer ${await userToken(tenant)}` },
    });
    return { status: res.status, body: await res.json(), type: res.headers.get('content-type') };
  }

  it('pages by cursor in device id order, with no repeat and no skip when devices appear between pages', async () => {
    await publish('p1', ['d02', 'd04', 'd06', 'd08', 'd10']);
    const first = (await get('p1', '?limit=2')).body as Page;
    expect(first.items.map((i) => i.deviceId)).toEqual(['d02', 'd04']);
    expect(first.items[0]).toMatchObject({ last: { seq: 1, data: { v: 'd02' } } });
    expect(typeof first.items[0]!.lastSeen).toBe('number');

    // Inserted before the cursor (d01, d03) and after it (d05, d07): only the later ones may show.
    await publish('p1', ['d01', 'd03', 'd05', 'd07']);
    const seen = first.items.map((i) => i.deviceId);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = (await get('p1', `?limit=2&cursor=${encodeURIComponent(cursor)}`)).body as Page;
      seen.push(...page.items.map((i) => i.deviceId));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(['d02', 'd04', 'd05', 'd06', 'd07', 'd08', 'd10']);
  });

  it('shows only the caller’s own tenant', async () => {
    await publish('p2', ['only-p2']);
    const page = (await get('p3', '?limit=500')).body as Page;
    expect(page.items.map((i) => i.deviceId)).not.toContain('only-p2');
    expect(((await get('p2', '')).body as Page).items.map((i) => i.deviceId)).toEqual(['only-p2']);
  });

  it('answers a bad limit or cursor with a 400 problem', async () => {
    for (const q of ['?limit=0', '?limit=501', '?limit=abc', '?limit=1.5']) {
      const res = await get('p1', q);
      expect(res.status, q).toBe(400);
      expect(res.type).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({
        status: 400,
        code: 'HUB_ERR_HTTP_BAD_REQUEST',
        errors: { limit: expect.any(String) },
      });
    }
    const bad = await get('p1', '?cursor=%%%not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'HUB_ERR_DEVICES_BAD_CURSOR' });
  });
});
