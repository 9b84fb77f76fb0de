import type { Reading } from '../../../src/protocol/reading';
import { HttpError } from './http-error';

/** One item of `GET /v1/devices` (contract "Devices (REST)"). */
export interface DeviceSummary {
  deviceId: string;
  /** Epoch ms (the server may send ms or ISO 8601; both are normalised here); null when never seen. */
  lastSeen: number | null;
  last: Reading | null;
}

interface DevicePage {
  items: { deviceId: string; lastSeen: unknown; last: Reading | null }[];
  nextCursor: string | null;
}

/** Largest page the contract allows: fewest round trips for big tenants. */
export const PAGE_LIMIT = 500;

export function toEpochMs(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/**
 * Yields every device of the caller's tenant, one page at a time, following `nextCursor` to the end.
 * `authFetch` adds the user's credentials.
 */
export async function* listDevices(
  authFetch: (url: string, init?: RequestInit) => Promise<Response>,
  limit = PAGE_LIMIT,
): AsyncGenerator<DeviceSummary[]> {
  let cursor: string | null = null;
  const seen = new Set<string>();
  do {
    const qs = new URLSearchParams({ limit: String(limit) });
    if (cursor) qs.set('cursor', cursor);
    const res = await authFetch(`/v1/devices?${qs}`, { headers: { accept: 'application/json' } });
    if (!res.ok) throw await HttpError.from(res, 'Listing devices');
    const page = (await res.json()) as DevicePage;
    const items: DeviceSummary[] = [];
    for (const it of page.items ?? []) {
      if (typeof it?.deviceId !== 'string') continue;
      items.push({ deviceId: it.deviceId, lastSeen: toEpochMs(it.lastSeen), last: it.last ?? null });
    }
    yield items;
    // A cursor that repeats would loop forever; stop rather than hammer the server.
    const next: string | null = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : null;
    if (next !== null && seen.has(next)) break;
    if (next !== null) seen.add(next);
    cursor = next;
  } while (cursor !== null);
}
