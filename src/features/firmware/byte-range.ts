import type { ByteRange } from './firmware-storage.js';

/**
 * A `Range` header against a representation of `size` bytes (RFC 9110 §14): one range (`a-b`,
 * `a-`, `-n`) → that range clipped to the size; absent, not `bytes=`, malformed or several ranges
 * → 'full' (a server may ignore a Range it will not serve); nothing of it inside → 'unsatisfiable' (416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'full' | 'unsatisfiable' {
  if (header === undefined) return 'full';
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'full';
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) return 'unsatisfiable';
  if (end < start) return 'full';
  return { start, end };
}
