import type { Reading } from '../../../src/wire/reading';
import { callError, type HubClient } from './hub-client';

/** One item of `GET /v1/devices` (contract "Devices (REST)"). */
export interface DeviceSummary {
  deviceId: string;
  /** Epoch ms (the server may send ms or ISO 8601; both are normalised here); null when never seen. */
  lastSeen: number | null;
  last: Reading | null;
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
 * Yields every device of the caller's tenant, one page at a time, following `nextCursor` to the end
 * (`GET /v1/devices`, operation listDevices).
 */
export async function* listDevices(client: HubClient, limit = PAGE_LIMIT): AsyncGenerator<DeviceSummary[]> {
  let cursor: string | null = null;
  const seen = new Set<string>();
  do {
    // Typed apart: the loop narrows `cursor` from the page, which TypeScript cannot infer through.
    const query: { limit: number; cursor?: string } = cursor ? { limit, cursor } : { limit };
    const {
      data: page,
      error,
      response,
    } = await client.GET('/v1/devices', {
      params: { query },
      headers: { accept: 'application/json' },
    });
    if (!page) throw callError(response, error, 'Listing devices');
    const items: DeviceSummary[] = [];
    for (const it of page.items ?? []) {
      if (typeof it?.deviceId !== 'string') continue;
      // The contract's `data` is any JSON object; a Reading's values are what the hub accepted.
      items.push({
        deviceId: it.deviceId,
        lastSeen: toEpochMs(it.lastSeen),
        last: (it.last as Reading | null) ?? null,
      });
    }
    yield items;
    // A cursor that repeats would loop forever; stop rather than hammer the server.
    const next: string | null = typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : null;
    if (next !== null && seen.has(next)) break;
    if (next !== null) seen.add(next);
    cursor = next;
  } while (cursor !== null);
}
