import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceCollection } from '../../../src/host/container/service-collection.js';
import { serviceKey } from '../../../src/host/container/service-key.js';
import { createHttpServer } from '../../../src/host/http/http-server.js';
import { HttpServerService } from '../../../src/host/http/http-server-service.js';
import { HTTP_CONTEXT } from '../../../src/host/pipeline/http-context.js';
import { WebApplication } from '../../../src/host/pipeline/web-application.js';
import { captureLog } from '../support/capture-log.js';
import { eventually } from '../../support/app-harness.js';

/** A scoped service that records its creation and disposal, with the path of its request. */
class Unit {
  constructor(
    readonly path: string,
    readonly events: string[],
  ) {
    events.push(`create ${path}`);
  }
}
const UNIT = serviceKey<Unit>('unit');
const INNER = serviceKey<{ label: string }>('inner');
const EVENTS = serviceKey<string[]>('events');

const servers: HttpServerService[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop(new AbortController().signal)));
});

async function serve(
  configure: (web: WebApplication, events: string[]) => void,
  limits: { requestTimeoutMs?: number; headersTimeoutMs?: number } = {},
) {
  const events: string[] = [];
  const services = new ServiceCollection()
    .instance(EVENTS, events)
    .perScope(HTTP_CONTEXT)
    .scoped(INNER, [EVENTS], (e) => (e.push('create inner'), { label: 'inner' }), {
      dispose: () => void events.push('dispose inner'),
    })
    .scoped(UNIT, [HTTP_CONTEXT, INNER, EVENTS], (http, _inner, e) => new Unit(http.path, e), {
      dispose: (u) => void events.push(`dispose ${u.path}`),
    })
    .build();
  const web = new WebApplication({ development: false });
  web.useExceptionHandler();
  web.useRouting();
  configure(web, events);
  const { log } = captureLog();
  const fastify = createHttpServer({
    app: web.build(),
    log,
    bodyLimitBytes: 1024,
    development: false,
    services: () => services,
    limits,
    streamedBodyPrefixes: ['/upload/'],
  });
  const server = new HttpServerService({ fastify, log, port: 0, host: '127.0.0.1' });
  await server.start();
  servers.push(server);
  return { url: server.url!, events };
}

describe('the request scope', () => {
  it('is one per request: the same instance within a request, another in the next, disposed in reverse order at its end', async () => {
    const seen: Unit[] = [];
    const { url, events } = await serve((web) => {
      web.routes.get('/a', ({ http }) => {
        seen.push(http.services.resolve(UNIT), http.services.resolve(UNIT));
        return { ok: true };
      });
    });

    expect((await fetch(`${url}/a`)).status).toBe(200);
    expect((await fetch(`${url}/a`)).status).toBe(200);

    expect(seen[0]).toBe(seen[1]);
    expect(seen[2]).not.toBe(seen[0]);
    expect(events).toEqual([
      'create inner',
      'create /a',
      'dispose /a',
      'dispose inner',
      'create inner',
      'create /a',
      'dispose /a',
      'dispose inner',
    ]);
  });

  it('is never created when nothing scoped is resolved', async () => {
    const { url, events } = await serve((web) => {
      web.routes.get('/plain', () => ({ ok: true }));
    });

    expect((await fetch(`${url}/plain`)).status).toBe(200);
    expect(events).toEqual([]);
  });

  it('is disposed when the endpoint throws, after the error answer is written', async () => {
    const { url, events } = await serve((web) => {
      web.routes.get('/boom', ({ http }) => {
        http.services.resolve(UNIT);
        throw new Error('broken');
      });
    });

    const res = await fetch(`${url}/boom`);

    expect(res.status).toBe(500);
    expect(events).toEqual(['create inner', 'create /boom', 'dispose /boom', 'dispose inner']);
  });

  it('is disposed when the client goes away while the endpoint still runs', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { url, events } = await serve((web) => {
      web.routes.get('/slow', async ({ http }) => {
        http.services.resolve(UNIT);
        await held;
        return { ok: true };
      });
    });
    const controller = new AbortController();
    const request = fetch(`${url}/slow`, { signal: controller.signal }).catch(() => 'aborted');
    await eventually(() => events.includes('create /slow'), 5000, 'the endpoint to start');

    controller.abort();
    await eventually(() => events.includes('dispose inner'), 5000, 'the scope to be disposed');

    expect(await request).toBe('aborted');
    expect(events).toEqual(['create inner', 'create /slow', 'dispose /slow', 'dispose inner']);
    release();
  });

  it('is disposed when the request timeout cuts a request whose body never arrives', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { url, events } = await serve(
      (web) => {
        web.routes.post('/upload/{name}', async ({ http }) => {
          http.services.resolve(UNIT);
          await held;
          return { ok: true };
        });
      },
      { requestTimeoutMs: 300, headersTimeoutMs: 200 },
    );
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    // Promises 100 bytes and sends 10: the request is never complete.
    socket.write(
      'POST /upload/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 100\r\n\r\n0123456789',
    );

    await eventually(() => events.includes('dispose inner'), 5000, 'the scope to be disposed at the request timeout');

    expect(events).toEqual(['create inner', 'create /upload/x', 'dispose /upload/x', 'dispose inner']);
    socket.destroy();
    release();
  });
});
