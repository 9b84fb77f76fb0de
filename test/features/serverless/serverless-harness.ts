import type { Duplex } from 'node:stream';
import { startOfficialClient, type Subscriber } from '../../support/web-pubsub-client.js';

export type { Subscriber };
import { eventually, startApp, type RunningApp } from '../../support/app-harness.js';
import { DeviceFleet } from '../../support/mqtt-device.js';

export interface ServerlessApp {
  readonly running: RunningApp;
  readonly url: string;
  /** `Hub:AccessKey` (generated in Development). */
  readonly accessKey: string;
  /** Raw sockets of every WebSocket upgrade, in arrival order (to cut them as a network failure would). */
  readonly upgrades: Duplex[];
  /** The `tenant_id` header of every management API request the host received. */
  readonly managementTenants: (string | undefined)[];
  readonly device: DeviceFleet;
  /** Publishes one reading as a device would, over MQTT to the embedded broker. */
  publish(tenantId: string, deviceId: string, data: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

/** The whole app (serverless endpoints included), a fast throttle, and a connected MQTT device. */
export async function startServerlessApp(): Promise<ServerlessApp> {
  const upgrades: Duplex[] = [];
  const managementTenants: (string | undefined)[] = [];
  const running = await startApp(['--Throttle:MaxPerSecondPerDevice=1000'], (app) => {
    app.web.use((ctx, next) => {
      if (ctx.upgrade !== undefined) upgrades.push(ctx.upgrade.socket);
      if (ctx.path.startsWith('/api/hubs/')) managementTenants.push(ctx.headers['tenant_id'] as string | undefined);
      return next(ctx);
    });
  });
  const device = new DeviceFleet(running.brokerUrl!);
  await eventually(() => running.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
  return {
    running,
    url: running.url,
    accessKey: running.app.config.hub.accessKey,
    upgrades,
    managementTenants,
    device,
    async publish(tenantId, deviceId, data) {
      await device.publishAsync(`tenants/${tenantId}/devices/${deviceId}/telemetry`, JSON.stringify(data), { qos: 1 });
    },
    async stop() {
      await device.endAsync();
      await running.stop();
    },
  };
}

/** POST /api/negotiate with the user's token; the raw response. */
export function negotiate(baseUrl: string, token: string | undefined): Promise<Response> {
  return fetch(`${baseUrl}/api/negotiate`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

/** POST /api/subscribe; `body` is sent as JSON unless it is a string. */
export function subscribe(baseUrl: string, token: string | undefined, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}/api/subscribe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * The official client, its access URL from `/api/negotiate` (fetched by the client itself, as a
 * browser app does), started and connected.
 */
export function connectClient(baseUrl: string, token: string, reliable: boolean): Promise<Subscriber> {
  return startOfficialClient(
    {
      getClientAccessUrl: async () => {
        const res = await negotiate(baseUrl, token);
        if (res.status !== 200) throw new Error(`negotiate answered ${res.status}`);
        return ((await res.json()) as { url: string }).url;
      },
    },
    reliable,
  );
}
