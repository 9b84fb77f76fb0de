import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER } from '../../../../src/host/security/dev-defaults.js';
import { signUserToken } from '../../../../src/host/security/jwt-bearer.js';
import { connectTelemetry, startApp, userToken, type RunningApp } from '../../../support/app-harness.js';

// Issue item 7: socket.io serves only /telemetry. The default namespace and any other refuse the
// connection; connect_error carries the generic message 'unauthorized' and a catalogued code that
// reveals nothing more; the detail is in the server log only.
let running: RunningApp;

beforeAll(async () => {
  running = await startApp();
});

afterAll(async () => {
  await running.stop();
});

function connectError(namespace: string, token: string | undefined): Promise<Error & { data?: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = io(`${running.url}${namespace}`, {
      auth: token ? { token } : {},
      transports: ['websocket'],
      reconnection: false,
    });
    socket.once('connect', () => {
      socket.close();
      reject(new Error(`connected to ${namespace}`));
    });
    socket.once('connect_error', (err) => {
      socket.close();
      resolve(err);
    });
  });
}

describe('socket.io namespaces', () => {
  it('refuses the default namespace and unknown ones, with or without a valid token, as unauthorized', async () => {
    const token = await userToken('t1');
    for (const namespace of ['/', '/admin', '/telemetry2']) {
      for (const t of [token, undefined]) {
        const err = await connectError(namespace, t);
        expect(err.message, namespace).toBe('unauthorized');
        expect(err.data, namespace).toEqual({ code: 'HUB_ERR_AUTH_FORBIDDEN' });
      }
    }
    expect(running.logs.some((l) => l['msg'] === 'socket.io connection refused' && l['namespace'] === '/admin')).toBe(
      true,
    );
    // The telemetry namespace still serves.
    (await connectTelemetry(running.url, token)).close();
  });

  it('says only unauthorized when the token is missing or rejected; the reason is logged on the server', async () => {
    const missing = await connectError('/telemetry', undefined);
    expect(missing.message).toBe('unauthorized');
    expect(missing.data).toEqual({ code: 'HUB_ERR_AUTH_UNAUTHENTICATED' });

    const forged = await signUserToken({
      sub: 'mallory',
      tenantId: 't1',
      roles: [],
      secret: 'another-secret-another-secret-another-secret',
      issuer: DEV_JWT_ISSUER,
      audience: DEV_JWT_AUDIENCE,
      expiresInSeconds: 600,
    });
    const rejected = await connectError('/telemetry', forged);
    expect(rejected.message).toBe('unauthorized');
    expect(rejected.data).toEqual({ code: 'HUB_ERR_AUTH_INVALID_TOKEN' });
    const logged = running.logs.find(
      (l) => l['msg'] === 'socket.io connection refused' && l['code'] === 'HUB_ERR_AUTH_INVALID_TOKEN',
    );
    expect(logged?.['reason']).toEqual(expect.any(String));
    expect(String(logged?.['reason']).length).toBeGreaterThan(0);
    expect(`${rejected.message} ${JSON.stringify(rejected.data)}`).not.toContain(String(logged?.['reason']));
  });
});
