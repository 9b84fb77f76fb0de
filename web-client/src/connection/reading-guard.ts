import type { Reading } from '../../../src/wire/reading';

/** Wire data is untrusted: a malformed message is dropped instead of breaking the buffers downstream. */
export function isReading(v: unknown): v is Reading {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.deviceId === 'string' &&
    typeof r.seq === 'number' &&
    Number.isFinite(r.seq) &&
    typeof r.ts === 'number' &&
    Number.isFinite(r.ts) &&
    typeof r.data === 'object' &&
    r.data !== null
  );
}
