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
    let code = `HTTP_${res.status}`;
    let detail = res.statusText;
    try {
      const body = (await res.json()) as { code?: unknown; detail?: unknown; title?: unknown };
      if (typeof body.code === 'string') code = body.code;
      if (typeof body.detail === 'string') detail = body.detail;
      else if (typeof body.title === 'string') detail = body.title;
    } catch {
      // Not JSON (e.g. a proxy's HTML page): the status is all we have.
    }
    return new HttpError(res.status, code, `${what} failed: ${res.status} ${detail}`.trim());
  }
}
