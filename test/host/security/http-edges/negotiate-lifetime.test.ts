import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../../../src/host/security/dev-defaults.js';
import { signUserToken } from '../../../../src/host/security/jwt-bearer.js';
import { startApp, userToken, type RunningApp } from '../../../support/app-harness.js';

// Issue 12 item 6: a negotiate token never outlives the user token it was minted from.

let running: RunningApp;
beforeAll(async () => {
  running = await startApp();
});
afterAll(async () => {
  await running?.stop();
});

async function negotiate(token: string): Promise<Response> {
  return fetch(`${running.url}/api/negotiate`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
}

function clientTokenOf(url: string): Record<string, unknown> {
  return decodeJwt(new URL(url).searchParams.get('access_token')!);
}

describe('the client access token from /api/negotiate', () => {
  it('expires with a user token that has 2 minutes left, not an hour later', async () => {
    const user = await userToken('demo', { expiresInSeconds: 120 });
    const res = await negotiate(user);
    expect(res.status).toBe(200);
    const client = clientTokenOf(((await res.json()) as { url: string }).url);
    expect(client.exp).toBeLessThanOrEqual(decodeJwt(user).exp!);
    expect(client.exp).toBeGreaterThan(Date.now() / 1000 + 60);
  });

  it('keeps its own one-hour lifetime under a longer-lived user token', async () => {
    const user = await userToken('demo', { expiresInSeconds: 6 * 3600 });
    const client = clientTokenOf(((await (await negotiate(user)).json()) as { url: string }).url);
    expect(client.exp! as number).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
  });

  it('is refused (401) for a user token past its exp but within the clock skew', async () => {
    // Issued 100 s ago for 90 s: expired 10 s ago, inside the 60 s skew the verifier tolerates.
    const now = Date.now() - 100_000;
    const user = await signUserToken({
      sub: 'late',
      tenantId: 'demo',
      secret: DEV_JWT_SECRET,
      issuer: DEV_JWT_ISSUER,
      audience: DEV_JWT_AUDIENCE,
      expiresInSeconds: 90,
      now,
    });
    const res = await negotiate(user);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
