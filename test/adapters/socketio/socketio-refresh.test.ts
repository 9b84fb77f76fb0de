import { io, type Socket } from 'socket.io-client';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signUserToken } from '../../../src/host/security/jwt-bearer.js';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../../src/host/security/dev-defaults.js';
import { connectTelemetry, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';

type RefreshAck = { ok: true; exp: number } | { ok: false; error: { code: string; message: string } };

/** Contract v2 "socket.io additions": `refresh` `{ token }` moves a live session's expiry, or changes nothing. */
describe('socket.io refresh', () => {
  const clock = new ManualClock(Date.now());
  let hub: RunningApp;
  let socket: Socket | undefined;

  beforeAll(async () => {
    hub = await startApp(['--Auth:Jwt:ClockSkewSeconds=0'], undefined, clock);
  });
  afterEach(() => {
    socket?.close();
    socket = undefined;
  });
  afterAll(async () => {
    await hub?.stop();
  });

  /** A session of alice@t1 whose token expires about 59–60 s from now on the hub's clock (exp is whole seconds). */
  async function sessionExpiringIn60s(): Promise<{
    socket: Socket;
    closed: () => boolean;
    hubClosed: Promise<unknown>;
  }> {
    // In step with the token's issuer, whatever earlier tests did to the clock.
    clock.setWallTime(Date.now());
    socket = await connectTelemetry(hub.url, await userToken('t1', { sub: 'alice', expiresInSeconds: 60 }));
    let told = false;
    const hubClosed = new Promise<unknown>((resolve) => socket!.once('hub_closed', resolve)).finally(
      () => (told = true),
    );
    return { socket, closed: () => told, hubClosed };
  }

  /** A round trip on the socket: had the session been closed, hub_closed would have come first. */
  async function roundTrip(s: Socket): Promise<void> {
    await s.emitWithAck('subscribe', { deviceId: 'still-open' });
  }

  it('a valid later token of the same user is acked with its exp, and the session outlives the old expiry and ends at the new one', async () => {
    const session = await sessionExpiringIn60s();
    const fresh = await userToken('t1', { sub: 'alice', expiresInSeconds: 600 });
    const ack = (await session.socket.emitWithAck('refresh', { token: fresh })) as RefreshAck;
    expect(ack).toEqual({ ok: true, exp: decodeJwt(fresh).exp });

    clock.advance(61_000); // past the first token's expiry
    await roundTrip(session.socket);
    expect(session.closed()).toBe(false);
    clock.advance(537_000); // 598 s: still before the new expiry
    await roundTrip(session.socket);
    expect(session.closed()).toBe(false);

    const disconnected = new Promise<string>((resolve) => session.socket.once('disconnect', resolve));
    clock.advance(3_000);
    expect(await session.hubClosed).toMatchObject({ reason: 'token-expired', code: 'HUB_ERR_AUTH_INVALID_TOKEN' });
    expect(await disconnected).toBe('io server disconnect');
  });

  it('a subscription made before a refresh is kept: the session is the same, nothing reconnects', async () => {
    const session = await sessionExpiringIn60s();
    let reconnected = false;
    session.socket.io.on('reconnect', () => (reconnected = true));
    const id = session.socket.id;
    await session.socket.emitWithAck('subscribe', { deviceId: 'kept' });
    const ack = (await session.socket.emitWithAck('refresh', {
      token: await userToken('t1', { sub: 'alice', expiresInSeconds: 600 }),
    })) as RefreshAck;
    expect(ack.ok).toBe(true);
    clock.advance(61_000);
    await roundTrip(session.socket);
    expect(session.socket.id).toBe(id);
    expect(reconnected).toBe(false);
    expect(hub.app.telemetry.hub.membersOf('device:t1:kept')).toEqual([expect.objectContaining({ userId: 'alice' })]);
  });

  it('a refresh sent before the previous one is answered is refused; the first still applies', async () => {
    clock.setWallTime(Date.now());
    // Long polling sends the packets waiting for a request in one request, so both reach the hub before the first is verified.
    socket = io(`${hub.url}/telemetry`, {
      auth: { token: await userToken('t1', { sub: 'alice', expiresInSeconds: 60 }) },
      transports: ['polling'],
      upgrade: false,
      reconnection: false,
    });
    await new Promise<void>((resolve, reject) => {
      socket!.once('connect', resolve);
      socket!.once('connect_error', reject);
    });
    const first = await userToken('t1', { sub: 'alice', expiresInSeconds: 600 });
    const second = await userToken('t1', { sub: 'alice', expiresInSeconds: 900 });
    // The first packet leaves at once in its own request; the two refreshes wait for it and go together.
    const [, ...acks] = (await Promise.all([
      socket.emitWithAck('subscribe', { deviceId: 'first-out' }),
      socket.emitWithAck('refresh', { token: first }),
      socket.emitWithAck('refresh', { token: second }),
    ])) as RefreshAck[];
    expect(acks).toEqual([
      { ok: true, exp: decodeJwt(first).exp },
      { ok: false, error: { code: 'HUB_ERR_HUB_LIMIT', message: expect.any(String) } },
    ]);
    // Once answered, the next refresh is taken.
    expect(await socket.emitWithAck('refresh', { token: second })).toEqual({ ok: true, exp: decodeJwt(second).exp });
  });

  const refused: [string, () => Promise<unknown>, string][] = [
    [
      'a token with a wrong signature',
      async () => ({
        token: await signUserToken({
          sub: 'alice',
          tenantId: 't1',
          secret: 'x'.repeat(32),
          issuer: DEV_JWT_ISSUER,
          audience: DEV_JWT_AUDIENCE,
          expiresInSeconds: 600,
        }),
      }),
      'HUB_ERR_AUTH_INVALID_TOKEN',
    ],
    [
      'a token of another tenant',
      async () => ({ token: await userToken('t2', { sub: 'alice', expiresInSeconds: 600 }) }),
      'HUB_ERR_AUTH_FORBIDDEN',
    ],
    [
      'a token of another user',
      async () => ({ token: await userToken('t1', { sub: 'mallory', expiresInSeconds: 600 }) }),
      'HUB_ERR_AUTH_FORBIDDEN',
    ],
    [
      'an expired token',
      async () => ({
        token: await signUserToken({
          sub: 'alice',
          tenantId: 't1',
          secret: DEV_JWT_SECRET,
          issuer: DEV_JWT_ISSUER,
          audience: DEV_JWT_AUDIENCE,
          expiresInSeconds: 60,
          now: Date.now() - 120_000,
        }),
      }),
      'HUB_ERR_AUTH_INVALID_TOKEN',
    ],
    ['garbage for a token', async () => ({ token: 'not.a.jwt' }), 'HUB_ERR_AUTH_INVALID_TOKEN'],
    ['no token', async () => ({}), 'HUB_ERR_HUB_BAD_MESSAGE'],
    ['no payload', async () => null, 'HUB_ERR_HUB_BAD_MESSAGE'],
    ['a token that is not a string', async () => ({ token: { sub: 'alice' } }), 'HUB_ERR_HUB_BAD_MESSAGE'],
  ];

  it.each(refused)(
    '%s is refused with an error ack, and the old expiry still applies',
    async (_name, payload, code) => {
      const session = await sessionExpiringIn60s();
      const ack = (await session.socket.emitWithAck('refresh', await payload())) as RefreshAck;
      expect(ack).toMatchObject({ ok: false, error: { code, message: expect.any(String) } });

      clock.advance(59_000);
      await roundTrip(session.socket);
      expect(session.closed()).toBe(false);
      clock.advance(2_000);
      expect(await session.hubClosed).toMatchObject({ reason: 'token-expired', code: 'HUB_ERR_AUTH_INVALID_TOKEN' });
    },
  );
});
