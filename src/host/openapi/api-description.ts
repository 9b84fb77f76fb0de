import type { SelectedEndpoint } from '../pipeline/http-context.js';

/** A JSON Schema (2020-12, the OpenAPI 3.1 dialect). */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface ApiParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly description?: string;
  /** A scalar schema: query, path and header values are strings parsed to it (integer, boolean, string). */
  readonly schema: JsonSchema;
}

export interface ApiResponse {
  readonly description: string;
  /** Default `application/json`; problems are `application/problem+json`. */
  readonly contentType?: string;
  readonly schema?: JsonSchema;
  readonly headers?: Readonly<Record<string, { description: string; schema: JsonSchema }>>;
}

/**
 * What an endpoint says about itself (endpoint metadata `api`): the one source for both the
 * request binder (`describedEndpoint`) and the OpenAPI documents, so they cannot drift apart.
 */
export interface ApiDescription {
  /** `public`: the customer surface; every described endpoint is also in `internal`. */
  readonly group: 'public' | 'internal';
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly parameters?: readonly ApiParameter[];
  readonly body?: { readonly contentType: string; readonly schema: JsonSchema; readonly description: string };
  readonly responses: Readonly<Record<string, ApiResponse>>;
  /** Default true: a bearer user token is required. */
  readonly authenticated?: boolean;
  /**
   * A deprecated endpoint still works; its responses carry `Deprecation` (RFC 9745), `Sunset`
   * (RFC 8594) when a removal date is set, and `Link` rel="deprecation" when a notice exists.
   */
  readonly deprecated?: { readonly since: Date; readonly sunset?: Date; readonly link?: string };
}

/** The description an endpoint carries, if any. */
export function apiOf(endpoint: SelectedEndpoint | null): ApiDescription | undefined {
  return endpoint?.metadata.api as ApiDescription | undefined;
}
