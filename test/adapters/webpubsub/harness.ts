import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CatchUp } from '../../../src/realtime/catch-up.js';
import { Hub } from '../../../src/realtime/hub.js';
import { createManagementService } from '../../../src/features/management/management-service.js';
import { createManagementHandler } from '../../../src/features/management/management-handler.js';
import { isManagementPath } from '../../../src/features/management/management-route.js';
import type { Reading } from '../../../src/wire/reading.js';
import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../../../src/wire/webpubsub/access-token.js';
import { handleWebPubSubUpgrade } from '../../../src/adapters/webpubsub/handle-web-pub-sub-upgrade.js';
import { hostServices } from '../../../src/compose/host-services.js';
import {
  WebPubSubEndpoint,
  type WebPubSubEndpointOptions,
} from '../../../src/adapters/webpubsub/web-pubsub-endpoint.js';

export const ACCESS_KEY = 'test-access-key-0123456789abcdef';
export const HUB_NAME = 'telemetry';

export interface Harness {
  readonly hub: Hub;
  readonly endpoint: WebPubSubEndpoint;
  readonly server: Server;
  readonly baseUrl: string;
  readonly port: number;
  /** A client access URL for the official client. */
  clientUrl(claims?: {
    userId?: string;
    tenantId?: string;
    roles?: string[];
    groups?: string[];
    expiresInSeconds?: number;
  }): Promise<string>;
  close(): Promise<void>;
}

/**
 * A plain node:http server on an ephemeral 127.0.0.1 port: upgrades go through
 * handleWebPubSubUpgrade (token verified there), `/api/...` to the management handler.
 */
export async function startHarness(
  options: Partial<Omit<WebPubSubEndpointOptions, 'hub'>> & {
    lastReading?: (t: string, d: string) => Reading | undefined;
    /** The catch-up (`subscribe` with `since`, recovery replays) over the harness's hub. */
    catchUpFor?: (hub: Hub) => CatchUp;
  } = {},
): Promise<Harness> {
  const hub = new Hub();
  const { catchUpFor, ...endpointOptions } = options;
  const endpoint = new WebPubSubEndpoint({
    hub,
    scopes: hostServices().build(),
    heartbeatIntervalMs: 0,
    ...endpointOptions,
    ...(catchUpFor === undefined ? {} : { catchUp: catchUpFor(hub) }),
  });
  const management = createManagementHandler({
    service: createManagementService(hub),
    hubName: HUB_NAME,
    accessKey: ACCESS_KEY,
  });
  const server = createServer((req, res) => void serveManagement(req, res));
  server.on('upgrade', (req, socket, head) => {
    void handleWebPubSubUpgrade(endpoint, req, socket, head, { accessKey: ACCESS_KEY, hubName: HUB_NAME }).then(
      (handled) => {
        if (!handled) socket.destroy();
      },
    );
  });

  async function serveManagement(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isManagementPath(req.url ?? '/')) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const response = await management({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      origin: `http://${req.headers.host}`,
      body,
    });
    res.writeHead(response.status, response.headers);
    res.end(response.body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    hub,
    endpoint,
    server,
    baseUrl,
    port,
    async clientUrl(claims = {}) {
      const token = await mintClientAccessToken({
        accessKey: ACCESS_KEY,
        audience: clientAudience(baseUrl, HUB_NAME),
        ...claims,
      });
      return clientAccessUrl(baseUrl, HUB_NAME, token);
    },
    async close() {
      await endpoint.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function reading(deviceId: string, seq: number, tenantId = 'demo'): Reading {
  return {
    tenantId,
    deviceId,
    seq,
    ts: 1_763_800_000_000 + seq,
    receivedAt: 1_763_800_000_004 + seq,
    data: { temperature: 20 + seq },
  };
}

/** Resolves when `check` passes, polling every 10 ms (rejects after `timeoutMs`). */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
