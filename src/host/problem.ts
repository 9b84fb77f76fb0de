import { Errors, HubError, type ErrorDefinition } from './errors.js';

/** RFC 9457 problem details, with the hub's `code` and `traceId` members. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  traceId: string;
  code: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

const TYPE_BASE = 'https://telemetry-hub.dev/problems/';

export function problem(
  definition: ErrorDefinition,
  detail: string,
  where: { instance: string; traceId: string },
  extensions?: Record<string, unknown>,
): ProblemDetails {
  return {
    ...extensions,
    type: TYPE_BASE + definition.code,
    title: definition.title,
    status: definition.status,
    detail,
    instance: where.instance,
    traceId: where.traceId,
    code: definition.code,
  };
}

/**
 * The problem for anything thrown. Only HubErrors speak to the client; any other error is an
 * internal one whose message (and stack) is shown in Development only.
 */
export function problemFromError(
  error: unknown,
  where: { instance: string; traceId: string },
  development: boolean,
): ProblemDetails {
  if (error instanceof HubError) {
    return problem(error.definition, error.message, where, error.extensions);
  }
  if (development && error instanceof Error) {
    return problem(Errors.HTTP_INTERNAL, error.message, where, { stack: error.stack });
  }
  return problem(Errors.HTTP_INTERNAL, 'An unexpected error occurred.', where);
}
