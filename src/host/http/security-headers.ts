/**
 * Headers every response carries unless the endpoint set its own (the dashboard sets a
 * Content-Security-Policy for its page). The default policy suits what the hub mostly answers,
 * JSON: nothing may load, nothing may frame it.
 */
const DEFAULTS: readonly (readonly [string, string])[] = [
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
];

/** One year; only sent over https (a browser ignores it over http, and it must never pin a plain-http dev host). */
const HSTS = ['strict-transport-security', 'max-age=31536000'] as const;

const WITH_HSTS: readonly (readonly [string, string])[] = [...DEFAULTS, HSTS];

/** The security headers for a response, given whether the client reached us over https. */
export function securityHeaders(https: boolean): readonly (readonly [string, string])[] {
  return https ? WITH_HSTS : DEFAULTS;
}

/** Adds each security header the response does not have yet. */
export function addSecurityHeaders(headers: Map<string, string | string[]>, https: boolean): void {
  for (const [name, value] of securityHeaders(https)) if (!headers.has(name)) headers.set(name, value);
}
