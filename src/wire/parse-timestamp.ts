/**
 * A device's `ts`: epoch milliseconds or an ISO 8601 date / date-time. Returns epoch ms, or
 * undefined when the value is not a usable time.
 *
 * Written out instead of `Date.parse` because that accepts non-ISO text ("March 7") and reads a
 * date-time without offset in the server's time zone. Here a date-time without offset is UTC,
 * so the result never depends on where the hub runs. Fractions beyond milliseconds are truncated.
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) && Math.abs(value) <= MAX_EPOCH_MS ? value : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const m = ISO_8601.exec(value);
  if (m === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone, sign, oh = '0', om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(oh) > 23 || Number(om) > 59) return undefined;
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 2025-02-30 over to March; reject instead of guessing.
  if (new Date(utc).getUTCDate() !== day) return undefined;
  const offsetMs = zone === undefined || sign === undefined ? 0 : (Number(oh) * 60 + Number(om)) * 60_000;
  return sign === '-' ? utc + offsetMs : utc - offsetMs;
}

/** ECMAScript's time value range. */
const MAX_EPOCH_MS = 8.64e15;

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;
