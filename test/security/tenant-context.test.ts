import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { currentTenant, runWithTenant, tenantFromHeaders, tenantHeaders } from '../../src/security/tenant-context.js';

describe('tenant context', () => {
  it('has no tenant outside a request and sends no header then', () => {
    expect(currentTenant()).toBeUndefined();
    expect(tenantHeaders()).toEqual({});
  });

  it('follows awaited work and keeps concurrent requests apart', async () => {
    const handle = (tenant: string, delayMs: number) =>
      runWithTenant(tenant, async () => {
        await sleep(delayMs);
        return { seen: currentTenant(), headers: tenantHeaders() };
      });
    const [a, b] = await Promise.all([handle('acme', 20), handle('globex', 5)]);
    expect(a).toEqual({ seen: 'acme', headers: { tenant_id: 'acme' } });
    expect(b).toEqual({ seen: 'globex', headers: { tenant_id: 'globex' } });
    expect(currentTenant()).toBeUndefined();
  });

  it('restores the tenant on the worker side from message headers', () => {
    const headers = runWithTenant('acme', () => tenantHeaders());
    const seen = runWithTenant(tenantFromHeaders(headers)!, () => currentTenant());
    expect(seen).toBe('acme');
  });

  it.each([
    [{}, undefined],
    [{ 'Tenant_Id': 'acme' }, 'acme'],
    [{ tenant_id: ['acme'] }, 'acme'],
    [{ tenant_id: 'a:b' }, undefined],
    [{ tenant_id: 'acme', TENANT_ID: 'globex' }, undefined],
  ])('reads %j as %j', (headers, expected) => {
    expect(tenantFromHeaders(headers)).toBe(expected);
  });

  it('refuses an invalid tenant id', () => {
    expect(() => runWithTenant('', () => 1)).toThrow(TypeError);
  });
});
