import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { serviceKey } from '../../src/host/container/service-key.js';
import type { ScopeValue } from '../../src/host/container/service-scope.js';
import { CONNECTION_CONTEXT, type ConnectionContext } from '../../src/realtime/connection-context.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';

const SESSION = serviceKey<ConnectionContext>('fixtureSession');
const SHARED = serviceKey<object>('fixtureShared');

let running: RunningApp | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/**
 * The hub as composed, each connection scope resolving a scoped service (noting its disposal) as
 * it opens; a singleton notes its own disposal at host stop.
 */
async function startWithProbe(events: string[]) {
  const hub = await startApp([], (app) => {
    app.registrations
      .singleton(SHARED, [], () => ({}), { dispose: () => void events.push('dispose singleton') })
      .scoped(SESSION, [CONNECTION_CONTEXT, SHARED], (who) => who, {
        dispose: (who) => void events.push(`dispose ${who.transport} ${who.userId}`),
      });
  });
  // The transports ask the container for each scope when a connection opens.
  const container = hub.app.container!;
  const createScope = container.createScope.bind(container);
  container.createScope = (values?: readonly ScopeValue[]) => {
    const scope = createScope(values);
    const who = scope.resolve(SESSION);
    events.push(`open ${who.transport} ${who.userId} ${who.tenantId}`);
    return scope;
  };
  return hub;
}

describe('connection scopes in the composed hub', () => {
  it('opens one per socket.io and Web PubSub connection and disposes them before the singletons when the host stops', async () => {
    const events: string[] = [];
    running = await startWithProbe(events);
    const socket = await connectTelemetry(running.url, await userToken('acme', { sub: 'alice' }));
    const res = await fetch(`${running.url}/api/negotiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await userToken('acme', { sub: 'bob' })}` },
    });
    const { url } = (await res.json()) as { url: string };
    const ws = new WebSocket(url, 'json.webpubsub.azure.v1');
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    await eventually(() => events.length === 2, 5000, 'both scopes opened');
    expect(events.sort()).toEqual(['open socketio alice acme', 'open webpubsub bob acme']);

    // Both clients still connected.
    await running.stop();
    running = undefined;
    socket.close();

    expect(events.slice(2, 4).sort()).toEqual(['dispose socketio alice', 'dispose webpubsub bob']);
    expect(events.slice(4)).toEqual(['dispose singleton']);
  });

  it('disposes a socket.io connection’s scope when its client disconnects', async () => {
    const events: string[] = [];
    running = await startWithProbe(events);
    const socket = await connectTelemetry(running.url, await userToken('acme', { sub: 'carol' }));
    await eventually(() => events.length === 1, 5000, 'the scope opened');

    socket.close();

    await eventually(() => events.length === 2, 5000, 'the scope disposed');
    expect(events).toEqual(['open socketio carol acme', 'dispose socketio carol']);
  });
});
