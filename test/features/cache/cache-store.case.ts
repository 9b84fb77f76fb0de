/**
 * The CacheStore contract every implementation runs (memory, Redis): what the output cache and the
 * data cache rely on. Values come back byte for byte until they expire; tags evict exactly their
 * entries; the store stays within its bounds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheStore, CacheStoreLimits } from '../../../src/features/cache/cache-store.js';
import { eventually } from '../../support/app-harness.js';

export interface StoreUnderTest {
  store: CacheStore;
  /** Closes what the store left open and deletes what it stored. */
  dispose(): Promise<void>;
}

const LIMITS: CacheStoreLimits = { maxEntries: 20, maxEntryBytes: 1024 };
const b = (s: string) => Buffer.from(s);

export function runCacheStoreContract(
  name: string,
  create: (limits: CacheStoreLimits) => Promise<StoreUnderTest>,
): void {
  describe(`${name} (CacheStore contract)`, () => {
    let sut: StoreUnderTest;
    let store: CacheStore;
    beforeEach(async () => {
      sut = await create(LIMITS);
      store = sut.store;
    });
    afterEach(async () => {
      await sut.dispose();
    });

    it('gives back the bytes that were set, and nothing for a key never set', async () => {
      const bytes = Buffer.from([0, 1, 2, 255, 0x7b]);
      await store.set('k1', bytes, 60_000);
      expect(await store.get('k1')).toEqual(bytes);
      expect(await store.get('nope')).toBeUndefined();
    });

    it('replaces a value set again, and forgets a deleted one', async () => {
      await store.set('k', b('one'), 60_000);
      await store.set('k', b('two'), 60_000);
      expect((await store.get('k'))?.toString()).toBe('two');
      await store.delete('k');
      expect(await store.get('k')).toBeUndefined();
    });

    it('forgets a value once its time is up, and keeps one still fresh', async () => {
      await store.set('short', b('s'), 40);
      await store.set('long', b('l'), 60_000);
      await eventually(async () => (await store.get('short')) === undefined, 3000, 'the short entry to expire');
      expect((await store.get('long'))?.toString()).toBe('l');
    });

    it('evicts every entry of a tag and only those', async () => {
      await store.set('a1', b('a1'), 60_000, ['device:a']);
      await store.set('a2', b('a2'), 60_000, ['device:a', 'tenant:t']);
      await store.set('b1', b('b1'), 60_000, ['device:b', 'tenant:t']);
      await store.evictTag('device:a');
      expect(await store.get('a1')).toBeUndefined();
      expect(await store.get('a2')).toBeUndefined();
      expect((await store.get('b1'))?.toString()).toBe('b1');
      await store.evictTag('tenant:t');
      expect(await store.get('b1')).toBeUndefined();
    });

    it('does not store an entry larger than the entry limit', async () => {
      await store.set('big', Buffer.alloc(LIMITS.maxEntryBytes + 1), 60_000);
      expect(await store.get('big')).toBeUndefined();
      await store.set('fits', Buffer.alloc(LIMITS.maxEntryBytes), 60_000);
      expect((await store.get('fits'))?.length).toBe(LIMITS.maxEntryBytes);
    });

    it('stays within maxEntries: the oldest go first, the newest stay', async () => {
      const total = LIMITS.maxEntries + 10;
      for (let i = 0; i < total; i++) await store.set(`n${i}`, b(String(i)), 60_000, ['all']);
      const present: number[] = [];
      for (let i = 0; i < total; i++) if ((await store.get(`n${i}`)) !== undefined) present.push(i);
      expect(present.length).toBeLessThanOrEqual(LIMITS.maxEntries);
      expect(present).toContain(total - 1);
      expect(present).not.toContain(0);
      // An entry pushed out leaves nothing behind that a tag eviction could trip on.
      await store.evictTag('all');
      for (const i of present) expect(await store.get(`n${i}`)).toBeUndefined();
    });
  });
}
