import { describe, expect, it } from 'vitest';
import {
  canAccessDevice,
  evaluatePolicies,
  requireAuthenticated,
  requireRole,
  requireTenant,
  type Policy,
} from '../../../src/host/security/authorization.js';
import type { Principal } from '../../../src/host/security/principal.js';

const user: Principal = { sub: 'u1', tenantId: 'acme', roles: [], scheme: 'bearer' };
const admin: Principal = { sub: 'a1', tenantId: 'acme', roles: ['admin'], scheme: 'bearer' };
const otherAdmin: Principal = { sub: 'a2', tenantId: 'globex', roles: ['admin'], scheme: 'bearer' };

interface DeviceRequest {
  tenantId?: string;
}
const sameTenant = requireTenant<DeviceRequest>((r) => r.tenantId);

describe('evaluatePolicies', () => {
  it('allows anonymous access when the endpoint has no policies', () => {
    expect(evaluatePolicies([], null, {})).toBe('allow');
  });

  it('challenges when nobody is signed in (→ 401)', () => {
    expect(evaluatePolicies([requireAuthenticated], null, {})).toBe('challenge');
    expect(evaluatePolicies<DeviceRequest>([requireAuthenticated, sameTenant], null, { tenantId: 'acme' })).toBe(
      'challenge',
    );
  });

  it('forbids a signed-in user who fails a policy (→ 403)', () => {
    expect(evaluatePolicies([requireAuthenticated, requireRole('admin')], user, {})).toBe('forbid');
    expect(evaluatePolicies<DeviceRequest>([sameTenant], admin, { tenantId: 'globex' })).toBe('forbid');
  });

  it('allows when every policy passes', () => {
    expect(
      evaluatePolicies<DeviceRequest>([requireAuthenticated, requireRole('admin'), sameTenant], admin, {
        tenantId: 'acme',
      }),
    ).toBe('allow');
  });

  it('keeps the 401/403 rule even for a custom policy that answers the other way', () => {
    const confused: Policy = (p) => (p ? 'challenge' : 'forbid');
    expect(evaluatePolicies([confused], user, {})).toBe('forbid');
    expect(evaluatePolicies([confused], null, {})).toBe('challenge');
  });

  it('forbids a resource without a tenant', () => {
    expect(evaluatePolicies<DeviceRequest>([sameTenant], user, {})).toBe('forbid');
  });
});

describe('canAccessDevice', () => {
  it('lets any user read devices of its own tenant', () => {
    expect(canAccessDevice(user, 'acme')).toBe(true);
  });

  it('lets only admins manage devices, and only in their own tenant', () => {
    expect(canAccessDevice(user, 'acme', 'manage')).toBe(false);
    expect(canAccessDevice(admin, 'acme', 'manage')).toBe(true);
    expect(canAccessDevice(otherAdmin, 'acme', 'manage')).toBe(false);
  });

  it('does not let admin read another tenant', () => {
    expect(canAccessDevice(otherAdmin, 'acme')).toBe(false);
    expect(canAccessDevice(null, 'acme')).toBe(false);
  });
});
