import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../src/realtime/device-registry.js';
import { InvalidCursorError } from '../../src/realtime/invalid-cursor-error.js';
import type { Reading } from '../../src/wire/reading.js';

const reading = (deviceId: string, seq = 1, tenantId = 'demo'): Reading => ({
  tenantId,
  deviceId,
  seq,
  ts: seq,
  receivedAt: 1000 + seq,
  data: { seq },
});

/** Every id over all pages; `between` runs after each page that has a next one. */
function allPages(
  registry: DeviceRegistry,
  tenantId: string,
  limit: number,
  between?: (page: number, lastIdSoFar: string) => void,
) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    const result = registry.list(tenantId, { limit, cursor });
    ids.push(...result.items.map((i) => i.deviceId));
    cursor = result.nextCursor;
    if (cursor === null) return ids;
    between?.(page, ids[ids.length - 1]!);
  }
}

describe('DeviceRegistry', () => {
  it('lists a tenant’s devices ordered by id with lastSeen and last reading', () => {
    const registry = new DeviceRegistry();
    for (const id of ['c', 'a', 'b']) registry.record(reading(id));
    registry.record(reading('a', 2));
    registry.record(reading('zzz', 1, 'other'));
    expect(registry.list('demo')).toEqual({
      items: [
        { deviceId: 'a', lastSeen: 1002, last: reading('a', 2) },
        { deviceId: 'b', lastSeen: 1001, last: reading('b') },
        { deviceId: 'c', lastSeen: 1001, last: reading('c') },
      ],
      nextCursor: null,
    });
  });

  it('returns the last accepted reading of a device, and nothing for an unknown one', () => {
    const registry = new DeviceRegistry();
    registry.record(reading('a', 1));
    registry.record(reading('a', 2));
    expect(registry.last('demo', 'a')?.seq).toBe(2);
    expect(registry.last('demo', 'b')).toBeUndefined();
    expect(registry.last('other', 'a')).toBeUndefined();
  });

  it('pages through every device exactly once', () => {
    const registry = new DeviceRegistry();
    const ids = Array.from({ length: 250 }, (_, i) => `dev-${String(i).padStart(3, '0')}`);
    for (const id of [...ids].reverse()) registry.record(reading(id));
    expect(allPages(registry, 'demo', 100)).toEqual(ids);
  });

  it('has no next cursor when a page ends exactly at the last device', () => {
    const registry = new DeviceRegistry();
    for (const id of ['a', 'b', 'c', 'd']) registry.record(reading(id));
    const first = registry.list('demo', { limit: 2 });
    expect(first.nextCursor).not.toBeNull();
    expect(registry.list('demo', { limit: 2, cursor: first.nextCursor }).nextCursor).toBeNull();
  });

  it('neither repeats nor skips when devices appear between page requests', () => {
    const registry = new DeviceRegistry();
    const initial = Array.from({ length: 30 }, (_, i) => `dev-${String(i * 10).padStart(3, '0')}`);
    for (const id of initial) registry.record(reading(id));
    const added: { id: string; cursorAt: string }[] = [];
    const seen = allPages(registry, 'demo', 7, (page, cursorAt) => {
      // New devices behind, just ahead of and far ahead of the cursor; an old one reporting again.
      const next = initial.find((id) => id > cursorAt)!;
      for (const id of [`aaa-${page}`, `${next}-a`, `zzz-${page}`]) {
        registry.record(reading(id));
        added.push({ id, cursorAt });
      }
      registry.record(reading(initial[page]!, 9));
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort());
    for (const id of initial) expect(seen).toContain(id);
    // A device appearing ahead of the cursor is listed; one behind it is for the next listing.
    for (const { id, cursorAt } of added) expect(seen.includes(id), id).toBe(id > cursorAt);
    expect(added.filter(({ id, cursorAt }) => id > cursorAt).length).toBeGreaterThan(0);
  });

  it('rejects a cursor it did not issue with InvalidCursorError', () => {
    const registry = new DeviceRegistry();
    registry.record(reading('a'));
    for (const cursor of ['***', 'Zm9v!', '', 'LWJhZA', Buffer.from('a'.repeat(65)).toString('base64url')]) {
      expect(() => registry.list('demo', { cursor }), cursor).toThrow(InvalidCursorError);
    }
    const thrown = (() => {
      try {
        registry.list('demo', { cursor: '***' });
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toMatchObject({ code: 'HUB_ERR_DEVICES_BAD_CURSOR' });
  });

  it('continues after a cursor whose device no longer matters', () => {
    const registry = new DeviceRegistry();
    for (const id of ['a', 'c']) registry.record(reading(id));
    const cursorAfterB = Buffer.from('b').toString('base64url');
    expect(registry.list('demo', { cursor: cursorAfterB }).items.map((i) => i.deviceId)).toEqual(['c']);
  });

  it('rejects a limit that is not a positive integer', () => {
    const registry = new DeviceRegistry();
    for (const limit of [0, -1, 1.5, Number.NaN]) expect(() => registry.list('demo', { limit })).toThrow(RangeError);
  });

  it('returns an empty page for an unknown tenant', () => {
    expect(new DeviceRegistry().list('nobody')).toEqual({ items: [], nextCursor: null });
  });

  it('keeps one entry per device however many readings it sends', () => {
    const registry = new DeviceRegistry();
    for (let seq = 1; seq <= 1000; seq++) registry.record(reading(`dev-${seq % 10}`, seq));
    expect(registry.count('demo')).toBe(10);
  });

  it('does not let a caller change the registry through a returned page', () => {
    const registry = new DeviceRegistry();
    registry.record(reading('a'));
    registry.list('demo').items[0]!.lastSeen = 0;
    expect(registry.list('demo').items[0]!.lastSeen).toBe(1001);
  });
});

describe('DeviceRegistry bound', () => {
  const at = (tenantId: string, deviceId: string, receivedAt: number): Reading => ({
    tenantId,
    deviceId,
    seq: 1,
    ts: receivedAt,
    receivedAt,
    data: {},
  });

  it('refuses a new device past maxDevices, so new ids cannot grow memory without bound; known devices keep their place', () => {
    const registry = new DeviceRegistry({ maxDevices: 3 });
    expect(registry.record(at('t1', 'a', 1))).toBe(true);
    expect(registry.record(at('t1', 'b', 2))).toBe(true);
    expect(registry.record(at('t2', 'c', 3))).toBe(true);
    expect(registry.record(at('t2', 'd', 4))).toBe(false);
    expect(registry.record(at('t1', 'a', 5))).toBe(true);
    expect(registry.size).toBe(3);
    expect(registry.last('t2', 'd')).toBeUndefined();
    expect(registry.last('t1', 'a')?.receivedAt).toBe(5);
    expect(registry.list('t1').items.map((i) => i.deviceId)).toEqual(['a', 'b']);
    expect(registry.list('t2').items.map((i) => i.deviceId)).toEqual(['c']);
  });

  it("stays at a tenant's quota under a flood of new device ids, leaving other tenants untouched", () => {
    const registry = new DeviceRegistry({ maxDevices: 100_000, maxDevicesPerTenant: 1000 });
    registry.record(at('quiet', 'q-1', 0));
    for (let i = 0; i < 20_000; i++) registry.record(at('flood', `dev-${i}`, i));
    expect(registry.count('flood')).toBe(1000);
    expect(registry.size).toBe(1001);
    const ids = registry.list('flood', { limit: 1000 }).items.map((i) => i.deviceId);
    expect(ids).toEqual([...ids].sort());
    expect(registry.last('flood', 'dev-999')).toBeDefined();
    expect(registry.last('flood', 'dev-1000')).toBeUndefined();
    expect(registry.record(at('quiet', 'q-2', 1))).toBe(true);
    expect(registry.last('quiet', 'q-1')).toBeDefined();
  });
});
