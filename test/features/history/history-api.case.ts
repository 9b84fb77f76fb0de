/**
 * The history REST API (contract v2 "History") on a running app, run on both engines: cursor
 * pages that neither repeat nor skip while readings arrive, time ranges, series aggregated per
 * bucket, bad parameters named in a 400 problem, and another tenant's device as 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireReading } from '../../../src/wire/reading.js';
import { eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';

/** Extra start arguments choosing the engine, and what to clean up after. */
export interface ApiEngine {
  args: string[];
  dispose(): Promise<void>;
}

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
type Page = { items: WireReading[]; nextCursor: string | null };

export function runHistoryApiContract(name: string, create: () => Promise<ApiEngine>): void {
  describe(`${name} (history API)`, () => {
    let engine: ApiEngine;
    let running: RunningApp;
    let acme: string;
    let globex: string;
    let sent = 0;

    /** Publishes readings as a device would and waits until the writer committed them. */
    async function publish(tenantId: string, deviceId: string, bodies: object[]): Promise<void> {
      for (const body of bodies) {
        const result = running.app.telemetry.pipeline.offer({
          tenantId,
          deviceId,
          payload: Buffer.from(JSON.stringify(body)),
        });
        expect(result.accepted).toBe(true);
        sent++;
      }
      await running.app.history!.writer.drain();
      expect(running.app.history!.writer.stats().written).toBe(sent);
    }

    const get = async (path: string, token = acme) => {
      const res = await fetch(`${running.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        body: (await res.json()) as Record<string, unknown>,
      };
    };

    beforeAll(async () => {
      engine = await create();
      running = await startApp(engine.args);
      acme = await userToken('acme');
      globex = await userToken('globex');
      // One reading a minute for an hour: temperature = minute, humidity = 100 − minute.
      await publish(
        'acme',
        'boiler',
        Array.from({ length: 60 }, (_, m) => ({
          ts: T0 + m * 60_000,
          temperature: m,
          humidity: 100 - m,
          status: 'ok',
        })),
      );
    }, 60_000);
    afterAll(async () => {
      await running?.stop();
      await engine?.dispose();
    });

    it('pages newest first with a cursor, no repeat and no skip while new readings arrive', async () => {
      const seen: number[] = [];
      let path = '/v1/devices/boiler/readings?limit=7';
      for (let page = 0; page < 20; page++) {
        const { status, body } = await get(path);
        expect(status).toBe(200);
        const { items, nextCursor } = body as unknown as Page;
        seen.push(...items.map((r) => r.seq));
        // A newer reading arrives between pages: it belongs before the first page, not in a later one.
        if (page === 1) await publish('acme', 'boiler', [{ ts: T0 + 3_600_000, temperature: 99, humidity: 1 }]);
        if (nextCursor === null) break;
        path = `/v1/devices/boiler/readings?limit=7&cursor=${nextCursor}`;
      }
      expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => 60 - i));
    });

    it('order=asc pages oldest first and reaches readings that arrive while paging', async () => {
      const before = ((await get('/v1/devices/boiler/readings?limit=1')).body as unknown as Page).items[0]!.seq;
      const seen: number[] = [];
      let path = '/v1/devices/boiler/readings?order=asc&limit=25';
      for (let page = 0; page < 20; page++) {
        const { items, nextCursor } = (await get(path)).body as unknown as Page;
        seen.push(...items.map((r) => r.seq));
        if (page === 0) await publish('acme', 'boiler', [{ temperature: 50 }, { temperature: 51 }]);
        if (nextCursor === null) break;
        path = `/v1/devices/boiler/readings?order=asc&limit=25&cursor=${nextCursor}`;
      }
      expect(seen).toEqual(Array.from({ length: before + 2 }, (_, i) => i + 1));
    });

    it('returns readings as subscribers receive them, within from (inclusive) and to (exclusive), ISO 8601 or epoch ms', async () => {
      const from = new Date(T0 + 10 * 60_000).toISOString();
      const { status, body } = await get(`/v1/devices/boiler/readings?order=asc&from=${from}&to=${T0 + 13 * 60_000}`);
      expect(status).toBe(200);
      const items = (body as unknown as Page).items;
      expect(items.map((r) => r.ts)).toEqual([10, 11, 12].map((m) => T0 + m * 60_000));
      expect(items[0]).toEqual({
        tenantId: 'acme',
        deviceId: 'boiler',
        seq: 11,
        ts: T0 + 600_000,
        receivedAt: expect.any(Number),
        data: { temperature: 10, humidity: 90, status: 'ok' },
      });
      expect((body as unknown as Page).nextCursor).toBeNull();
    });

    it('series: per bucket the count and min/max/avg of each numeric field, buckets ascending', async () => {
      const { status, body } = await get(`/v1/devices/boiler/series?from=${T0}&to=${T0 + 3_600_000}&bucket=15m`);
      expect(status).toBe(200);
      expect(body.bucketMs).toBe(900_000);
      const points = body.points as {
        t: number;
        count: number;
        fields: Record<string, { min: number; max: number; avg: number }>;
      }[];
      expect(points.map((p) => [p.t, p.count])).toEqual([0, 1, 2, 3].map((q) => [T0 + q * 900_000, 15]));
      expect(points[1]!.fields).toEqual({
        temperature: { min: 15, max: 29, avg: 22 },
        humidity: { min: 71, max: 85, avg: 78 },
      });
    });

    it('another tenant cannot see the device: 404, the same as a device that does not exist', async () => {
      for (const path of ['/v1/devices/boiler/readings', '/v1/devices/boiler/series?bucket=1h']) {
        const other = await get(path, globex);
        expect(other.status).toBe(404);
        expect(other.type).toMatch(/^application\/problem\+json/);
        const unknown = await get(path.replace('boiler', 'no-such-device'));
        expect([unknown.status, unknown.body.code, other.body.code]).toEqual([
          404,
          'HUB_ERR_DEVICES_NOT_FOUND',
          'HUB_ERR_DEVICES_NOT_FOUND',
        ]);
      }
      expect((await fetch(`${running.url}/v1/devices/boiler/readings`)).status).toBe(401);
    });

    it.each([
      ['/v1/devices/boiler/readings?limit=0', 'limit'],
      ['/v1/devices/boiler/readings?limit=1001', 'limit'],
      ['/v1/devices/boiler/readings?order=newest', 'order'],
      ['/v1/devices/boiler/readings?from=yesterday', 'from'],
      ['/v1/devices/boiler/readings?from=2026-01-05T12:00:00Z&to=2026-01-05T11:00:00Z', 'to'],
      ['/v1/devices/boiler/readings?cursor=bm9wZQ', 'cursor'],
      [`/v1/devices/boiler/readings?order=desc&cursor=${Buffer.from('asc:3').toString('base64url')}`, 'cursor'],
      ['/v1/devices/boiler/series', 'bucket'],
      ['/v1/devices/boiler/series?bucket=500ms', 'bucket'],
      ['/v1/devices/boiler/series?bucket=2d', 'bucket'],
      [`/v1/devices/boiler/series?bucket=1s&from=${T0 - 7 * 86_400_000}&to=${T0}`, 'bucket'],
      ['/v1/devices/boiler/series?bucket=1m&to=soon', 'to'],
    ])('%s → 400 problem naming %s', async (path, parameter) => {
      const { status, type, body } = await get(path);
      expect(status).toBe(400);
      expect(type).toMatch(/^application\/problem\+json/);
      expect(body.code).toBe('HUB_ERR_HTTP_BAD_REQUEST');
      expect(Object.keys(body.errors as object)).toEqual([parameter]);
    });

    it('the readings and devices survive in the database: the writer has nothing left pending', async () => {
      await eventually(() => running.app.history!.writer.stats().pending === 0, 5000, 'writer idle');
      expect(running.app.history!.writer.stats()).toMatchObject({ dropped: 0, written: sent });
    });
  });
}
