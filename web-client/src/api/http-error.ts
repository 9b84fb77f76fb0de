/** A failed HTTP call, carrying the contract's problem `code` (`HUB_ERR_…`) when the server sent one. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** Builds the error from an RFC 9457 problem body when there is one, from the status otherwise. */
  static async from(res: Response, what: string): Promise<HttpError> {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      // Not JSON (e.g. a proxy's HTML page): the status is all we have.
    }
    return HttpError.fromProblem(res.status, res.statusText, body, what);
  }

  /** Builds the error from a body already read (anything: a problem, a proxy's text, nothing). */
  static fromProblem(status: number, statusText: string, body: unknown, what: string): HttpError {
    const problem = (typeof body === 'object' && body !== null ? body : {}) as {
      code?: unknown;
      detail?: unknown;
      title?: unknown;
    };
    const code = typeof problem.code === 'string' ? problem.code : `HTTP_${status}`;
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : statusText;
    return new HttpError(status, code, `${what} failed: ${status} ${detail}`.trim());
  }
}
