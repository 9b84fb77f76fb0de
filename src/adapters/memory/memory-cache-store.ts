import type { Clock } from '../../host/clock.js';
import type { CacheStore, CacheStoreLimits } from '../../features/cache/cache-store.js';

interface Entry {
  value: Buffer;
  expiresAt: number;
  tags: readonly string[];
}

/**
 * The in-process CacheStore: a Map in insertion order (re-set moves a key to the end), so the
 * first key is the oldest and goes first when the store is full. Expiry is checked on read and by
 * eviction, with no timer per entry.
 */
export class MemoryCacheStore implements CacheStore {
  readonly #entries = new Map<string, Entry>();
  readonly #tags = new Map<string, Set<string>>();
  readonly #limits: CacheStoreLimits;
  readonly #clock: Pick<Clock, 'monotonicNow'>;

  constructor(limits: CacheStoreLimits, clock: Pick<Clock, 'monotonicNow'>) {
    this.#limits = limits;
    this.#clock = clock;
  }

  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<Buffer | undefined> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.monotonicNow()) {
      this.#remove(key);
      return undefined;
    }
    return entry.value;
  }

  async set(key: string, value: Buffer, ttlMs: number, tags: readonly string[] = []): Promise<void> {
    this.#remove(key);
    if (value.length > this.#limits.maxEntryBytes || ttlMs <= 0) return;
    this.#entries.set(key, { value, expiresAt: this.#clock.monotonicNow() + ttlMs, tags });
    for (const tag of tags) {
      let keys = this.#tags.get(tag);
      if (keys === undefined) this.#tags.set(tag, (keys = new Set()));
      keys.add(key);
    }
    while (this.#entries.size > this.#limits.maxEntries) this.#remove(this.#entries.keys().next().value!);
  }

  async delete(key: string): Promise<void> {
    this.#remove(key);
  }

  async evictTag(tag: string): Promise<void> {
    for (const key of this.#tags.get(tag) ?? []) this.#remove(key);
    this.#tags.delete(tag);
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#tags.clear();
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.#tags.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.#tags.delete(tag);
    }
  }
}
