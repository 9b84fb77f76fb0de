import fc from 'fast-check';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, startApp, userToken, type RunningApp } from '../../../support/app-harness.js';
import { CATALOGUED_CODES, RUNS } from './fuzz-support.js';

let hub: RunningApp;
let socket: Socket;
beforeAll(async () => {
  hub = await startApp();
  socket = await connectTelemetry(hub.url, await userToken('fuzz'));
});
afterAll(async () => {
  socket?.close();
  await hub?.stop();
});

/** What a socket.io client can put in an event's arguments: any JSON, binary, ids that almost fit. */
const argument = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      deviceId: fc.oneof(fc.string({ maxLength: 70 }), fc.jsonValue()),
      tenantId: fc.oneof(fc.constant('fuzz'), fc.string({ maxLength: 10 }), fc.jsonValue()),
      since: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.jsonValue()),
    },
    { requiredKeys: [] },
  ),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);

/** Issue 12 item 9: socket.io `subscribe` / `unsubscribe` arguments over a real connection. */
describe('fuzz: socket.io events', () => {
  it('any subscribe / unsubscribe argument gets { ok: true } or { ok: false, error: { code } } with a catalogued code, and the connection stays up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('subscribe', 'unsubscribe'), argument, async (event, payload) => {
        const ack = (await socket.timeout(5000).emitWithAck(event, payload)) as {
          ok: boolean;
          error?: { code: string };
        };
        const catchUp = event === 'subscribe' && (payload as { since?: unknown } | null)?.since !== undefined;
        if (ack.ok)
          expect(Object.keys(ack).sort()).toEqual(
            event !== 'subscribe' ? ['ok'] : catchUp ? ['last', 'ok', 'replayed', 'truncated'] : ['last', 'ok'],
          );
        else expect(CATALOGUED_CODES).toContain(ack.error?.code);
      }),
      { numRuns: RUNS },
    );
    expect(socket.connected).toBe(true);
  }, 60_000);

  it('events without an ack, with extra arguments, or of unknown names are ignored without closing the connection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom('subscribe', 'unsubscribe', 'reading', 'refresh'), fc.string({ maxLength: 20 })),
        fc.array(argument, { maxLength: 3 }),
        async (event, args) => {
          if (
            ['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener'].includes(event)
          )
            return;
          socket.emit(event, ...args);
        },
      ),
      { numRuns: RUNS },
    );
    // A round trip after all of them: the server processed them in order and still answers.
    expect(await socket.timeout(5000).emitWithAck('subscribe', { deviceId: 'still-here' })).toMatchObject({ ok: true });
    expect(socket.connected).toBe(true);
  }, 60_000);
});
