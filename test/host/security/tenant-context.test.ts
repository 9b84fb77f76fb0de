import { describe, expect, it } from 'vitest';
import {
  currentTenant,
  runWithTenant,
  tenantFromHeaders,
  tenantHeaders,
} from '../../../src/host/security/tenant-context.js';

describe('tenant context', () => {
  it('has no tenant outside a request and sends no header then', () => {
    expect(currentTenant()).toBeUndefined();
    expect(tenantHeaders()).toEqual({});
  });

  it('follows awaited work and keeps concurrent requests apart', async () => {
    // Each request waits on its own gate; they are opened in the other order, so the two
    // continuations interleave across a macrotask each.
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { opened, open };
    };
    const gates = { acme: gate(), globex: gate() };
    const handle = (tenant: 'acme' | 'globex') =>
      runWithTenant(tenant, async () => {
        await gates[tenant].opened;
        await new Promise((resolve) => setImmediate(resolve));
        return { seen: currentTenant(), headers: tenantHeaders() };
      });
    const both = Promise.all([handle('acme'), handle('globex')]);
    setImmediate(() => {
      gates.globex.open();
      setImmediate(() => gates.acme.open());
    });
    const [a, b] = await both;
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
    [{ Tenant_Id: 'acme' }, 'acme'],
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
