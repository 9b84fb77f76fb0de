/** What a failed management API call is, for the log only: status and code, never the request (it carries the token). */
export interface UpstreamFailure {
  readonly statusCode: number | undefined;
  readonly code: string | undefined;
  readonly message: string;
}

export function describeUpstreamFailure(err: unknown): UpstreamFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { statusCode?: unknown; code?: unknown; message?: unknown };
  return {
    statusCode: typeof e.statusCode === 'number' ? e.statusCode : undefined,
    code: typeof e.code === 'string' ? e.code : undefined,
    message: typeof e.message === 'string' ? e.message.slice(0, 300) : String(err),
  };
}
