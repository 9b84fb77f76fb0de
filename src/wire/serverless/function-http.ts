import { Errors, type ErrorKey } from '../../host/errors.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../../host/problem.js';

/**
 * The little of an HTTP request the handlers read. Adapters build it from an Azure Functions
 * HttpRequest or from the hub's HttpContext, so the same handler runs in both places.
 */
export interface FunctionRequest {
  /** The `Authorization` header, if any. */
  readonly authorization: string | undefined;
  /** The body as text; '' when there was none. */
  readonly body: string;
  /** The request path, used as a problem's `instance`. */
  readonly path: string;
  /** Correlates a problem body with the logs (W3C trace id, else the invocation id). */
  readonly traceId: string;
}

export interface FunctionResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Logger methods the handlers use (pino's signature: object first). */
export interface FunctionLog {
  warn(obj: object, msg: string): void;
}

const NO_STORE = { 'cache-control': 'no-store' };

export function jsonResponse(status: number, value: unknown): FunctionResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...NO_STORE },
    body: JSON.stringify(value),
  };
}

export function noContent(): FunctionResponse {
  return { status: 204, headers: NO_STORE };
}

/** An RFC 9457 problem with a catalogue code; `detail` is written for the caller, never an internal error's text. */
export function problemResponse(
  req: FunctionRequest,
  key: ErrorKey,
  detail: string,
  headers: Record<string, string> = {},
): FunctionResponse {
  const definition = Errors[key];
  const body = problem(definition, detail, { instance: req.path, traceId: req.traceId });
  return {
    status: definition.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...NO_STORE, ...headers },
    body: JSON.stringify(body),
  };
}
