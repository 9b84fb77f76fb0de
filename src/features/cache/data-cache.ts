import type { CacheStore } from './cache-store.js';

export interface DataCacheEntryOptions {
  ttlMs: number;
  tags?: readonly string[];
}

/**
 * Objects, not responses (spec "data cache"): a hit runs the endpoint but skips the database.
 * Values are JSON in a CacheStore (memory, or Redis shared by every instance). Concurrent misses of
 * one key in this process share one load (stampede protection); a store that fails is a miss, so
 * Redis being down costs database queries, never answers. Keys must name their tenant.
 */
export class DataCache {
  readonly #store: CacheStore;
  readonly #loading = new Map<string, Promise<unknown>>();
  readonly #onStoreError: (err: unknown) => void;
  /** Moves on every eviction: a load that began before one may hold old data and is not stored. */
  #epoch = 0;

  constructor(store: CacheStore, onStoreError: (err: unknown) => void = () => {}) {
    this.#store = store;
    this.#onStoreError = onStoreError;
  }

  /** The cached value of `key`, else `load()`'s, stored for next time (an `undefined` result is not stored). */
  getOrLoad<T>(key: string, load: () => Promise<T>, options: DataCacheEntryOptions): Promise<T> {
    const pending = this.#loading.get(key);
    if (pending !== undefined) return pending as Promise<T>;
    const loading: Promise<T> = this.#getOrLoad(key, load, options).finally(() => {
      if (this.#loading.get(key) === loading) this.#loading.delete(key);
    });
    this.#loading.set(key, loading);
    return loading;
  }

  async evict(key: string): Promise<void> {
    this.#epoch++;
    this.#loading.delete(key);
    await this.#store.delete(key).catch(this.#onStoreError);
  }

  async evictTag(tag: string): Promise<void> {
    this.#epoch++;
    this.#loading.clear();
    await this.#store.evictTag(tag).catch(this.#onStoreError);
  }

  async #getOrLoad<T>(key: string, load: () => Promise<T>, options: DataCacheEntryOptions): Promise<T> {
    const epoch = this.#epoch;
    const hit = await this.#store.get(key).catch((err: unknown) => void this.#onStoreError(err));
    if (hit !== undefined) {
      try {
        return JSON.parse(hit.toString()) as T;
      } catch {
        // Not ours (another version's format): load afresh and overwrite it.
      }
    }
    const value = await load();
    if (value !== undefined && epoch === this.#epoch) {
      await this.#store
        .set(key, Buffer.from(JSON.stringify(value)), options.ttlMs, options.tags)
        .catch(this.#onStoreError);
    }
    return value;
  }
}
