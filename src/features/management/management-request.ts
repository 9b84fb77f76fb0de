import type { IncomingHttpHeaders } from 'node:http';

/**
 * A data-plane REST request as the host hands it over. `url` must be the request-target exactly
 * as the client sent it (path + query, before any path-base stripping): the token's audience
 * is that URL. `body` is best passed as the raw bytes.
 */
export interface ManagementRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /**
   * The base URL the caller used, as the edge identity resolves it (`Http:PublicBaseUrl`, a trusted
   * proxy's forwarded host, else the validated Host): a token's audience names it or the Host.
   */
  readonly origin: string;
  /** Parsed from `url` when absent. */
  readonly query?: URLSearchParams | Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body?: Buffer | Uint8Array | string | unknown;
  /** Included in problem bodies when the host has one. */
  readonly traceId?: string;
}

export interface ManagementResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A problem+json text for errors; absent otherwise. */
  readonly body?: string;
}
