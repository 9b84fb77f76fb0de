/**
 * Bytes under a key for a while, findable by tag: the one seam under the output cache and the data
 * cache. In memory by default, Redis when configured (shared by every instance). Both are bounded
 * the same way: an entry larger than `maxEntryBytes` is not stored, and beyond `maxEntries` the
 * oldest entries go, so a store never holds more than about `maxEntries × maxEntryBytes`.
 * A store that fails (Redis down) throws; its callers treat that as a miss and never fail a request.
 */
export interface CacheStore {
  get(key: string): Promise<Buffer | undefined>;
  /** Stores `value` for `ttlMs`; a value over the entry limit is not stored. */
  set(key: string, value: Buffer, ttlMs: number, tags?: readonly string[]): Promise<void>;
  delete(key: string): Promise<void>;
  /** Removes every entry stored with `tag`. */
  evictTag(tag: string): Promise<void>;
  close(): Promise<void>;
}

export interface CacheStoreLimits {
  maxEntries: number;
  maxEntryBytes: number;
}
