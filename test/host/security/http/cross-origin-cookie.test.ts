import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../../../support/app-harness.js';

// Issue 25 item 5: a session cookie does not authenticate an unsafe request another site's page
// makes (cross-site request forgery). Browsers say where a request comes from (Sec-Fetch-Site,
// Origin); a bearer token needs no such check, since no other site can attach it.

let running: RunningApp;
let cookie: string;

beforeAll(async () => {
  running = await startApp();
  const res = await fetch(`${running.url}/auth/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await userToken('demo')}` },
  });
  cookie = res.headers.get('set-cookie')!.split(';')[0]!;
});
afterAll(() => running?.stop());

const putProfile = (headers: Record<string, string>) =>
  fetch(`${running.url}/v1/profile`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email: 'a@example.com', phone: '+100' }),
  });

describe('cookie authentication on unsafe methods', () => {
  it('is refused (403 problem) from another origin or another site', async () => {
    const froms: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: running.url },
    ];
    for (const from of froms) {
      const res = await putProfile({ cookie, ...from });
      expect(res.status, JSON.stringify(from)).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('HUB_ERR_AUTH_FORBIDDEN');
    }
  });

  it('is accepted from the hub’s own pages, and from clients that are not browsers', async () => {
    const froms: Record<string, string>[] = [
      { origin: running.url },
      { 'sec-fetch-site': 'same-origin', origin: running.url },
      {},
    ];
    for (const from of froms) {
      expect((await putProfile({ cookie, ...from })).status, JSON.stringify(from)).toBe(200);
    }
  });

  it('does not concern safe methods or bearer tokens', async () => {
    expect(
      (await fetch(`${running.url}/v1/profile`, { headers: { cookie, origin: 'http://evil.example' } })).status,
    ).toBe(200);
    expect(
      (await putProfile({ authorization: `Bearer ${await userToken('demo')}`, origin: 'http://evil.example' })).status,
    ).toBe(200);
  });
});
