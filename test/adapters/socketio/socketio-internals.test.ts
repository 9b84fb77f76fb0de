import { readFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { createRequire } from 'node:module';
import { Socket as NetSocket, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { Server as Engine } from 'engine.io';
import { Server, type Socket } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textFrame } from '../../../src/wire/web-socket-frame.js';
import { eventually } from '../../support/app-harness.js';

const root = join(import.meta.dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  overrides: Record<string, string | Record<string, string>>;
};

/** The version of `pkg` that code at `from` loads (walks up from its entry to its package.json). */
function installedVersion(pkg: string, from = join(root, 'package.json')): string {
  let dir = dirname(createRequire(from).resolve(pkg));
  for (;;) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (json.name === pkg) return json.version;
    } catch {
      // not a package root yet
    }
    dir = dirname(dir);
  }
}

/**
 * The socket.io direct path (src/adapters/socketio/socketio-connection.ts) and the idle-memory
 * trims (socketio-transport.ts, upgrade-response-relay.ts) read and write engine.io, ws and
 * socket.io fields that are not in their typings. When one is renamed the hub falls back to the
 * slow path or keeps memory without any behaviour test noticing, so these packages are pinned
 * exactly and this suite checks, on real instances, that every field the code relies on is there.
 */
describe('socket.io internals the hub relies on', () => {
  it('engine.io, socket.io, socket.io-parser, ws and engine.io’s own ws are pinned exactly, and those versions are installed', () => {
    for (const pkg of ['engine.io', 'socket.io', 'socket.io-parser', 'ws']) {
      expect(manifest.dependencies[pkg], pkg).toMatch(/^\d+\.\d+\.\d+$/);
      expect(installedVersion(pkg), pkg).toBe(manifest.dependencies[pkg]);
    }
    const enginesWs = (manifest.overrides['engine.io'] as Record<string, string> | undefined)?.ws;
    expect(enginesWs).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installedVersion('ws', createRequire(import.meta.url).resolve('engine.io'))).toBe(enginesWs);
  });

  describe('on a live WebSocket session', () => {
    let http: HttpServer;
    let url: string;
    const sessions: Socket[] = [];
    const clients: ClientSocket[] = [];
    const closeListeners: {
      added: (((...a: unknown[]) => void) & { listener?: (...a: unknown[]) => void }) | undefined;
      socket: NetSocket;
    }[] = [];

    beforeAll(async () => {
      // Wired as SocketIoTransport wires them: an engine.io server of its own, socket.io bound to it.
      const engine = new Engine({ maxHttpBufferSize: 64 * 1024 });
      const sio = new Server();
      sio.bind(engine);
      sio.of('/shape').on('connection', (s) => sessions.push(s));
      http = createServer((req, res) => engine.handleRequest(req, res));
      http.on('upgrade', (req, socket: NetSocket, head) => {
        const before = socket.rawListeners('close').length;
        engine.handleUpgrade(req, socket, head);
        closeListeners.push({ added: socket.rawListeners('close')[before] as never, socket });
      });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const client = io(`${url}/shape`, { transports: ['websocket'], reconnection: false });
      clients.push(client);
      await new Promise<void>(
        (resolve, reject) => (client.once('connect', resolve), client.once('connect_error', reject)),
      );
      await eventually(() => sessions.length === 1, 3000, 'the server-side session');
    });
    afterAll(async () => {
      for (const c of clients) c.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });

    it('engine.io’s socket has readyState, upgrading, writeBuffer, request and a WebSocket transport over ws with its TCP socket', () => {
      const conn = sessions[0]!.conn as unknown as Record<string, any>;
      expect(conn.readyState).toBe('open');
      expect(conn.upgrading).toBe(false);
      expect(Array.isArray(conn.writeBuffer)).toBe(true);
      expect(conn.request).toEqual(expect.objectContaining({ headers: expect.any(Object) }));
      expect(conn.transport.name).toBe('websocket');
      const raw = conn.transport.socket?._socket;
      expect(raw).toBeInstanceOf(NetSocket);
      expect(raw.writable).toBe(true);
    });

    it('socket.io’s handshake carries headers, query, auth and url (replaced after the connection is set up)', () => {
      expect(sessions[0]!.handshake).toEqual(
        expect.objectContaining({
          headers: expect.any(Object),
          query: expect.any(Object),
          auth: expect.any(Object),
          url: expect.any(String),
        }),
      );
    });

    it('a prebuilt frame written to the transport’s TCP socket reaches the client as a socket.io event', async () => {
      const got: unknown[] = [];
      clients[0]!.on('direct', (v: unknown) => got.push(v));
      const raw = (sessions[0]!.conn as unknown as { transport: { socket: { _socket: NetSocket } } }).transport.socket
        ._socket;
      raw.write(textFrame(Buffer.from('42/shape,["direct",1]')));
      await eventually(() => got.length === 1, 3000, 'the direct frame');
      expect(got).toEqual([1]);
    });

    it('engine.io writes a wsPreEncodedFrame as is instead of encoding the packet', async () => {
      const got: string[] = [];
      clients[0]!.on('packet', () => got.push('packet'));
      clients[0]!.on('frame', () => got.push('frame'));
      sessions[0]!.conn.write('2/shape,["packet"]', {
        compress: true,
        wsPreEncodedFrame: [textFrame(Buffer.from('42/shape,["frame"]'))],
      } as never);
      await eventually(() => got.length === 1, 3000, 'the pre-encoded frame');
      expect(got).toEqual(['frame']);
    });

    it('engine.io’s first close listener on an upgraded socket is its anonymous response relay, and ws’s own is named', () => {
      const [{ added, socket }] = closeListeners as [(typeof closeListeners)[number]];
      expect(added).toBeDefined();
      expect((added!.listener ?? added!).name).toBe('');
      expect(socket.listeners('close').map((l) => l.name)).toContain('socketOnClose');
    });
  });
});
