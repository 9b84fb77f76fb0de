/** Value parsers for configuration keys. Each throws a short reason; the loader names the key. */
import { isIP } from 'node:net';

export type Raw = string | number | boolean;

/** A parser, and what it accepts in words (the configuration reference's "value" column). */
export type Parser<T> = ((raw: Raw) => T) & { readonly accepts?: string };

function accepting<T>(accepts: string, parse: (raw: Raw) => T): Parser<T> {
  return Object.assign(parse, { accepts });
}

/** What a key's parser accepts, for the configuration reference; empty when it does not say. */
export function acceptsOf(parse: (raw: Raw) => unknown): string {
  return (parse as Parser<unknown>).accepts ?? '';
}

export function int(min: number, max: number) {
  return accepting(`integer ${min}–${max}`, (raw: Raw): number => {
    const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`must be an integer from ${min} to ${max}`);
    return n;
  });
}

export function num(min: number, max: number, { exclusiveMin = false } = {}) {
  return accepting(
    `number ${exclusiveMin ? '>' : '≥'} ${min}${max < Infinity ? `, ≤ ${max}` : ''}`,
    (raw: Raw): number => {
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
      if (!Number.isFinite(n) || n > max || (exclusiveMin ? n <= min : n < min)) {
        throw new Error(
          `must be a number ${exclusiveMin ? 'greater than' : 'from'} ${min}${max < Infinity ? ` up to ${max}` : ''}`,
        );
      }
      return n;
    },
  );
}

export const port = int(0, 65535);

/** `true`/`false` (any case), also 1/0 and yes/no as environment variables often spell them. */
export const bool = accepting('`true` or `false`', (raw: Raw): boolean => {
  if (typeof raw === 'boolean') return raw;
  const s = String(raw).trim().toLowerCase();
  if (['true', '1', 'yes'].includes(s)) return true;
  if (['false', '0', 'no'].includes(s)) return false;
  throw new Error('must be true or false');
});

export function str({ minLength = 1, pattern }: { minLength?: number; pattern?: RegExp } = {}) {
  const accepts = pattern
    ? `text matching \`${pattern.source}\``
    : minLength > 1
      ? `text, ≥ ${minLength} characters`
      : 'text';
  return accepting(accepts, (raw: Raw): string => {
    const s = String(raw).trim();
    if (s.length < minLength)
      throw new Error(minLength > 1 ? `must be at least ${minLength} characters` : 'must not be empty');
    if (pattern && !pattern.test(s)) throw new Error(`must match ${pattern}`);
    return s;
  });
}

export function url(protocols: readonly string[]) {
  return accepting(`URL (${protocols.map((p) => `${p}://`).join(', ')})`, (raw: Raw): string => {
    let parsed: URL;
    try {
      parsed = new URL(String(raw).trim());
    } catch {
      throw new Error(`must be a URL (${protocols.join(', ')})`);
    }
    if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
      throw new Error(`must use one of ${protocols.map((p) => p + '://').join(', ')}`);
    }
    return String(raw).trim();
  });
}

/** Comma separated origins, each `scheme://host[:port]`. */
export const origins = accepting('comma separated origins (`scheme://host[:port]`, or `*`)', (raw: Raw): string[] => {
  const list = String(raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const o of list) {
    if (o === '*') continue;
    let u: URL;
    try {
      u = new URL(o);
    } catch {
      throw new Error(`'${o}' is not an origin (scheme://host[:port])`);
    }
    if (u.origin !== o.replace(/\/$/, '').toLowerCase())
      throw new Error(`'${o}' is not an origin (scheme://host[:port])`);
  }
  return list.map((o) => o.replace(/\/$/, '').toLowerCase());
});

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Accepts pino's names and the .NET ones users bring along (Information, Warning, Critical, None). */
export const logLevel = accepting(
  `${LOG_LEVELS.join(', ')} (or Information, Warning, Critical, None)`,
  (raw: Raw): LogLevel => {
    const s = String(raw).trim().toLowerCase();
    const alias: Record<string, LogLevel> = { information: 'info', warning: 'warn', critical: 'fatal', none: 'silent' };
    const level = alias[s] ?? s;
    if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
    return level as LogLevel;
  },
);

/** Comma separated IP addresses or CIDR ranges (IPv4 or IPv6), e.g. `10.0.0.0/8, ::1`. */
export const addressList = accepting('comma separated IPs or CIDR ranges', (raw: Raw): string[] => {
  const list = String(raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of list) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const bits = family === 4 ? 32 : 128;
    const validPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !validPrefix || extra !== undefined)
      throw new Error(`'${entry}' is not an IP address or CIDR range`);
  }
  return list;
});
