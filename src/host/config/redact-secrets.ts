/**
 * Secrets out of text bound for a log or an error message. Two nets: the configured secret values
 * themselves (whatever library prints them, in whatever message), and the shapes secrets take in
 * connection strings users paste anywhere (`scheme://user:password@host`, `SharedAccessKey=…`).
 */

export const REDACTED = '[redacted]';

/** `scheme://user:password@` → the password; `Key=value` pairs of connection strings whose value is a secret. */
const SECRET_SHAPES =
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@"]*:)([^\s@/"]+)(@)|(\b(?:SharedAccessKey|AccessKey|SharedAccessSignature|Password|Pwd)\s*=\s*)([^;\s"]+)/gi;

/** Replaces passwords in URLs and keys in `Key=value;` connection strings with `[redacted]`. */
export function redactText(text: string): string {
  return text.replace(SECRET_SHAPES, (_m, urlHead?: string, _pw?: string, at?: string, keyHead?: string) =>
    urlHead !== undefined ? `${urlHead}${REDACTED}${at}` : `${keyHead}${REDACTED}`,
  );
}

/**
 * The strings to scrub for one secret configuration value: the whole value, or for a connection
 * string just its secret parts (so the host stays readable in logs), each also as it appears
 * percent-decoded and JSON-escaped.
 */
export function secretFragments(value: string, connectionString: boolean): string[] {
  const parts: string[] = [];
  if (!connectionString) parts.push(value);
  else {
    for (const m of value.matchAll(SECRET_SHAPES)) parts.push(m[2] ?? m[5]!);
  }
  const out = new Set<string>();
  for (const part of parts) {
    if (part.length < 4) continue;
    out.add(part);
    try {
      out.add(decodeURIComponent(part));
    } catch {
      // not percent-encoded
    }
  }
  for (const s of [...out]) out.add(JSON.stringify(s).slice(1, -1));
  return [...out];
}

/** A scrubber for finished log lines: known secret values first, then secret-shaped text. */
export function createScrubber(secrets: readonly string[]): (line: string) => string {
  // Longest first, so a value containing another is replaced whole.
  const known = [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  return (line) => {
    let out = line;
    for (const s of known) if (out.includes(s)) out = out.split(s).join(REDACTED);
    // Both shapes need `://` or `=`; most lines (the request line among them) have neither.
    if (!out.includes('://') && !out.includes('=')) return out;
    SECRET_SHAPES.lastIndex = 0;
    return SECRET_SHAPES.test(out) ? redactText(out) : out;
  };
}
