import { describe, expect, it } from 'vitest';
import { apply, replace, type OwnedProfile } from '../../../src/features/profile/field-ownership.js';

const empty: OwnedProfile = { values: { email: null, phone: null }, managed: {} };

function ok(result: ReturnType<typeof apply>): OwnedProfile {
  if ('conflicts' in result) throw new Error(`unexpected conflicts ${JSON.stringify(result.conflicts)}`);
  return result;
}

describe('server-side apply of the profile', () => {
  it('an apply sets the stated fields and makes the applier their owner', () => {
    const p = ok(apply(empty, { email: 'a@example.com' }, 'crm', false));
    expect(p).toEqual({ values: { email: 'a@example.com', phone: null }, managed: { email: ['crm'] } });
  });

  it("changing another manager's field is rejected whole, naming the field and its owner", () => {
    const p = ok(apply(empty, { email: 'a@example.com' }, 'crm', false));
    const result = apply(p, { email: 'b@example.com', phone: '+1 555' }, 'mobile', false);
    expect(result).toEqual({ conflicts: [{ field: 'email', managers: ['crm'] }] });
  });

  it('force takes the field over; the old owner now conflicts in turn', () => {
    const p = ok(apply(empty, { email: 'a@example.com' }, 'crm', false));
    const forced = ok(apply(p, { email: 'b@example.com' }, 'mobile', true));
    expect(forced).toEqual({ values: { email: 'b@example.com', phone: null }, managed: { email: ['mobile'] } });
    expect(apply(forced, { email: 'a@example.com' }, 'crm', false)).toEqual({
      conflicts: [{ field: 'email', managers: ['mobile'] }],
    });
  });

  it('applying the value already there shares ownership instead of conflicting', () => {
    const p = ok(apply(empty, { email: 'a@example.com' }, 'crm', false));
    expect(ok(apply(p, { email: 'a@example.com' }, 'mobile', false)).managed).toEqual({ email: ['crm', 'mobile'] });
  });

  it('a field the manager stops stating is released, and cleared when nobody else owns it', () => {
    const p = ok(apply(empty, { email: 'a@example.com', phone: '+1 555' }, 'crm', false));
    expect(ok(apply(p, { email: 'a@example.com' }, 'crm', false))).toEqual({
      values: { email: 'a@example.com', phone: null },
      managed: { email: ['crm'] },
    });
  });

  it('a full-state replace never conflicts; the fields it changes become the writer’s', () => {
    const p = ok(apply(empty, { email: 'a@example.com', phone: '+1 555' }, 'crm', false));
    const r = replace(p, { email: 'a@example.com', phone: '+44 20' }, 'form');
    expect(r).toEqual({
      values: { email: 'a@example.com', phone: '+44 20' },
      managed: { email: ['crm'], phone: ['form'] },
    });
  });
});
