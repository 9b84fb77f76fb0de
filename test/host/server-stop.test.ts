import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../src/host/lifecycle/host.js';
import type { HostedService } from '../../src/host/lifecycle/hosted-service.js';
import { Results } from '../../src/host/pipeline/results.js';
import { captureLog } from './support/capture-log.js';
import { testServer } from './support/test-server.js';

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Opens an upgrade request and resolves with the socket once the server switched protocols. */
function upgrade(
  url: string,
  path: string,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port) }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: test\r\nconnection: Upgrade\r\nupgrade: test-protocol\r\n\r\n`);
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('data', (d: Buffer) => {
      data += d.toString();
      if (data.includes('101 Switching Protocols')) resolve({ socket, received: () => data, closed });
    });
    socket.once('error', reject);
  });
}

describe('the HTTP server as the last hosted service', () => {
  it('stops first: it refuses new connections before the services registered earlier stop', async () => {
    const { server } = testServer((web) => web.routes.get('/x', () => ({ ok: true })));
    const seenByEarlierService: boolean[] = [];
    const earlier: HostedService = {
      name: 'ingestion',
      start: async () => undefined,
      stop: async () => void seenByEarlierService.push(await refused(server.url!)),
    };
    const host = new Host({ logger: captureLog().log, shutdownTimeoutMs: 5000 }).add(earlier).add(server);
    hosts.push(host);
    await host.start();
    expect(await refused(server.url!)).toBe(false);

    await host.stop();

    expect(seenByEarlierService).toEqual([true]);
  });

  it('closes long-lived connections through onClosing ("reconnect elsewhere"), so the drain completes', async () => {
    const upgraded: Socket[] = [];
    const { server } = testServer((web) =>
      web.routes.get('/live', ({ http }) => {
        const socket = http.upgrade!.socket as Socket;
        socket.write('HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: test-protocol\r\n\r\n');
        upgraded.push(socket);
        return Results.handled();
      }),
    );
    server.onClosing(() => {
      for (const socket of upgraded) socket.end('close 1012 reconnect elsewhere');
    });
    const host = new Host({ logger: captureLog().log, shutdownTimeoutMs: 2000 }).add(server);
    hosts.push(host);
    await host.start();
    const client = await upgrade(server.url!, '/live');

    const result = await host.stop();

    await client.closed;
    expect(client.received()).toContain('close 1012 reconnect elsewhere');
    expect(result.abandoned).toEqual([]);
  });
});
