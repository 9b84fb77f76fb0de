import type { KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';

/**
 * The caches' keys. Both caches live in Redis when `ConnectionStrings:redis` is set (shared by every
 * instance), else in memory; either way within these bounds (entries × entry size).
 */
export const CACHE_KEYS: readonly KeyDefinition[] = [
  // stored responses at most; the oldest go first
  {
    key: 'OutputCache:MaxEntries',
    doc: 'stored responses at most (the oldest go first); in Redis when `ConnectionStrings:redis` is set, else in memory',
    parse: p.int(1, 1_000_000),
    default: () => 1000,
  },
  // bytes; a larger response is answered but not stored
  {
    key: 'OutputCache:MaxEntryBytes',
    doc: 'the largest response stored (a larger answer is sent, not stored)',
    parse: p.int(1024, 16 * 1024 * 1024),
    default: () => 256 * 1024,
  },
  // cached objects at most (firmware metadata, …); the oldest go first
  {
    key: 'DataCache:MaxEntries',
    doc: 'cached objects (firmware records) at most, 16 KiB each at most; Redis or memory like the output cache',
    parse: p.int(1, 10_000_000),
    default: () => 10_000,
  },
];
