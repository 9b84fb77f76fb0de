import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../../support/app-harness.js';

/** Spec "Profile rule" (lost update) and its two cures: preconditions (412/428) and server-side apply (409). */
describe('/v1/profile', () => {
  let running: RunningApp;
  let strict: RunningApp;
  beforeAll(async () => {
    [running, strict] = await Promise.all([startApp(), startApp(['--Profile:RequireIfMatch=true'])]);
  });
  afterAll(async () => Promise.all([running?.stop(), strict?.stop()]));

  async function client(app: RunningApp, sub: string) {
    const token = await userToken('acme', { sub });
    const send = async (method: string, body?: unknown, headers: Record<string, string> = {}, query = '') => {
      const res = await fetch(`${app.url}/v1/profile${query}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, etag: res.headers.get('etag'), body: (await res.json()) as Record<string, any> };
    };
    return {
      read: () => send('GET'),
      put: (body: unknown, headers?: Record<string, string>) => send('PUT', body, headers),
      apply: (body: unknown, manager: string, force = false, headers: Record<string, string> = {}) =>
        send(
          'PATCH',
          body,
          { 'content-type': 'application/apply-patch+json', ...headers },
          `?fieldManager=${manager}${force ? '&force=true' : ''}`,
        ),
    };
  }

  it('lost update without preconditions: A and B read, both write, B silently overwrites A’s change', async () => {
    const user = await client(running, 'lost');
    await user.put({ email: 'old@example.com', phone: '+1 555 0100' });
    const a = (await user.read()).body;
    const b = (await user.read()).body;
    expect((await user.put({ ...a, email: 'new@example.com' })).status).toBe(200); // A changes the email
    expect((await user.put({ ...b, phone: '+1 555 0199' })).status).toBe(200); // B changes the phone, resending the stale email
    expect((await user.read()).body).toEqual({ email: 'old@example.com', phone: '+1 555 0199' }); // A's change is gone
  });

  it('with ETag and If-Match the stale write gets 412 and changes nothing', async () => {
    const user = await client(running, 'cured');
    await user.put({ email: 'old@example.com', phone: '+1 555 0100' });
    const a = await user.read();
    const b = await user.read();
    expect(a.etag).toMatch(/^"\d+"$/);
    const writeA = await user.put({ ...a.body, email: 'new@example.com' }, { 'if-match': a.etag! });
    expect(writeA.status).toBe(200);
    expect(writeA.etag).not.toBe(a.etag);
    const writeB = await user.put({ ...b.body, phone: '+1 555 0199' }, { 'if-match': b.etag! });
    expect(writeB.status).toBe(412);
    expect(writeB.body.code).toBe('HUB_ERR_PROFILE_PRECONDITION_FAILED');
    expect((await user.read()).body).toEqual({ email: 'new@example.com', phone: '+1 555 0100' });
  });

  it('a server that requires If-Match answers a PUT without it with 428', async () => {
    const user = await client(strict, 'strict');
    const res = await user.put({ email: 'x@example.com', phone: null });
    expect(res.status).toBe(428);
    expect(res.body.code).toBe('HUB_ERR_PROFILE_PRECONDITION_REQUIRED');
    const current = await user.read();
    expect((await user.put({ email: 'x@example.com', phone: null }, { 'if-match': current.etag! })).status).toBe(200);
  });

  it('apply: changing a field another manager owns is 409 naming it, whole; force=true takes it over', async () => {
    const user = await client(running, 'ssa');
    expect((await user.apply({ email: 'crm@example.com' }, 'crm')).status).toBe(200);
    const conflict = await user.apply({ email: 'app@example.com', phone: '+1 555 0123' }, 'mobile-app');
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('HUB_ERR_PROFILE_FIELD_CONFLICT');
    expect(conflict.body.conflicts).toEqual([{ field: 'email', managers: ['crm'] }]);
    expect(conflict.body.detail).toContain('email');
    expect((await user.read()).body).toEqual({ email: 'crm@example.com', phone: null }); // rejected whole: no phone either
    const forced = await user.apply({ email: 'app@example.com', phone: '+1 555 0123' }, 'mobile-app', true);
    expect(forced.status).toBe(200);
    expect(forced.body).toEqual({ email: 'app@example.com', phone: '+1 555 0123' });
    expect((await user.apply({ email: 'crm@example.com' }, 'crm')).body.conflicts).toEqual([
      { field: 'email', managers: ['mobile-app'] },
    ]);
  });

  it('apply needs a field manager and the apply-patch content type', async () => {
    const token = await userToken('acme', { sub: 'x' });
    const noManager = await fetch(`${running.url}/v1/profile`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/apply-patch+json' },
      body: '{}',
    });
    expect(noManager.status).toBe(400);
    expect((await noManager.json()).errors).toEqual({ fieldManager: 'is required' });
    const wrongType = await fetch(`${running.url}/v1/profile?fieldManager=m`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' },
      body: '{}',
    });
    expect(wrongType.status).toBe(415);
  });

  it('refuses over-long values with 400 naming each, and stores nothing of them', async () => {
    const c = await client(running, 'long');
    const tooLong = (field: string, max: number) => ({ [field]: `must NOT have more than ${max} characters` });
    const long = await c.put({ email: `${'a'.repeat(250)}@b.example`, phone: '1'.repeat(33) });
    expect([long.status, long.body.code]).toEqual([400, 'HUB_ERR_HTTP_BAD_REQUEST']);
    expect(long.body.errors).toEqual({ ...tooLong('email', 254), ...tooLong('phone', 32) });
    const manager = await c.apply({ email: 'a@b.example' }, 'm'.repeat(129));
    expect([manager.status, manager.body.errors]).toEqual([400, tooLong('fieldManager', 128)]);
    const putManager = await fetch(`${running.url}/v1/profile?fieldManager=${'m'.repeat(129)}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${await userToken('acme', { sub: 'long' })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email: null, phone: null }),
    });
    expect([putManager.status, ((await putManager.json()) as { errors: unknown }).errors]).toEqual([
      400,
      tooLong('fieldManager', 128),
    ]);
    const ifMatch = await c.put(
      { email: 'a@b.example', phone: null },
      { 'if-match': Array.from({ length: 200 }, (_, i) => `"${i}"`).join(', ') },
    );
    expect([ifMatch.status, ifMatch.body.errors]).toEqual([400, tooLong('If-Match', 1024)]);
    expect((await c.read()).body).toEqual({ email: null, phone: null });
  });
});
