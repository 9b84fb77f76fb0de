/** What a failed management API call is, for the log only: status and code, never the request (it carries the token). */
export interface UpstreamFailure {
  readonly statusCode: number | undefined;
  readonly code: string | undefined;
  readonly message: string;
}

export function describeUpstreamFailure(err: unknown): UpstreamFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    statusCode?: unknown;
    code?: unknown;
    message?: unknown;
    response?: unknown;
  };
  return {
    statusCode: typeof e.statusCode === 'number' ? e.statusCode : undefined,
    code: typeof e.code === 'string' ? e.code : problemCode(e.response),
    message: typeof e.message === 'string' ? e.message.slice(0, 300) : String(err),
  };
}

/**
 * The `code` of a problem+json body, which this hub's management API answers with: the SDK
 * parses only application/json error bodies, so the code is read from the body text here.
 */
function problemCode(response: unknown): string | undefined {
  const text = (response as { bodyAsText?: unknown } | undefined)?.bodyAsText;
  if (typeof text !== 'string' || text.length > 4096) return undefined;
  try {
    const code = (JSON.parse(text) as { code?: unknown } | null)?.code;
    return typeof code === 'string' && code.startsWith('HUB_ERR_') ? code : undefined;
  } catch {
    return undefined;
  }
}
