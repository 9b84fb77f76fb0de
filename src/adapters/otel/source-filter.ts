/**
 * Which named sources record. A pattern is an exact name (case-insensitive, as configuration keys
 * are) or ends in `*`, which matches any rest: `TelemetryHub.Ingestion.*` covers
 * `TelemetryHub.Ingestion.Mqtt`; `*` alone covers everything.
 */
export class SourceFilter {
  readonly #exact = new Set<string>();
  readonly #prefixes: string[] = [];

  constructor(patterns: readonly string[]) {
    for (const pattern of patterns) {
      const lower = pattern.toLowerCase();
      if (lower.endsWith('*')) this.#prefixes.push(lower.slice(0, -1));
      else this.#exact.add(lower);
    }
  }

  /** Whether some name beginning with `prefix` could match (e.g. any `TelemetryHub.Logs.` source). */
  mayMatchUnder(prefix: string): boolean {
    const lower = prefix.toLowerCase();
    return (
      [...this.#exact].some((name) => name.startsWith(lower)) ||
      this.#prefixes.some((p) => p.startsWith(lower) || lower.startsWith(p))
    );
  }

  matches(name: string): boolean {
    const lower = name.toLowerCase();
    return this.#exact.has(lower) || this.#prefixes.some((prefix) => lower.startsWith(prefix));
  }
}

const PATTERN = /^(\*|[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*(\.\*)?)$/;

/** `Telemetry:Sources`: comma separated names or wildcards; an empty list subscribes nothing. */
export function parseSourcePatterns(raw: string | number | boolean): string[] {
  const list = String(raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const pattern of list) {
    if (!PATTERN.test(pattern))
      throw new Error(`'${pattern}' is not a source name or a wildcard like TelemetryHub.Ingestion.*`);
  }
  return list;
}
