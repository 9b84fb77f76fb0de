import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { ErrorDefinition } from '../errors.js';
import { problem, problemFromError, PROBLEM_CONTENT_TYPE } from '../problem.js';
import type { HttpContext } from './http-context.js';

/** What an endpoint returns. Filters see it on the way out; only then is it executed. */
export interface Result {
  readonly status: number;
  execute(ctx: HttpContext): void;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export class JsonResult implements Result {
  constructor(
    readonly value: unknown,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}

  execute(ctx: HttpContext): void {
    ctx.response.status = this.status;
    ctx.response.headers.set('content-type', JSON_CONTENT_TYPE);
    for (const k in this.headers) ctx.response.setHeader(k, this.headers[k]!);
    ctx.response.body = JSON.stringify(this.value);
  }
}

export class BytesResult implements Result {
  constructor(
    readonly body: string | Buffer | null,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}

  execute(ctx: HttpContext): void {
    ctx.response.status = this.status;
    for (const [k, v] of Object.entries(this.headers)) ctx.response.setHeader(k, v);
    ctx.response.body = this.body;
  }
}

export class ProblemResult implements Result {
  readonly status: number;
  constructor(
    readonly definition: ErrorDefinition,
    readonly detail: string,
    readonly extensions?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    this.status = definition.status;
  }

  execute(ctx: HttpContext): void {
    writeProblem(ctx, problem(this.definition, this.detail, where(ctx), this.extensions), this.headers);
  }
}

/** A body streamed to the client as it is read (a large file); never buffered, never output-cached. */
export class StreamResult implements Result {
  constructor(
    readonly body: Readable,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}

  execute(ctx: HttpContext): void {
    ctx.response.status = this.status;
    for (const [k, v] of Object.entries(this.headers)) ctx.response.setHeader(k, v);
    ctx.response.body = this.body;
  }
}

/** The endpoint already answered on the raw request or socket. */
export class HandledResult implements Result {
  readonly status = 101;
  execute(ctx: HttpContext): void {
    ctx.response.hijacked = true;
  }
}

/**
 * Hands the raw request and response to another HTTP handler (socket.io's engine), with the headers
 * the pipeline set so far (CORS) already on the response. Not for upgrades: there is no response.
 */
export class HandOffResult implements Result {
  readonly status = 200;
  constructor(private readonly handler: (req: IncomingMessage, res: ServerResponse) => void) {}

  execute(ctx: HttpContext): void {
    const res = ctx.rawResponse;
    if (res === undefined)
      throw new Error('no raw response to hand off (an upgrade, or a request not from the server)');
    for (const [name, value] of ctx.response.headers) res.setHeader(name, value);
    ctx.response.hijacked = true;
    this.handler(ctx.raw, res);
  }
}

export const Results = {
  json: (value: unknown, status = 200, headers?: Record<string, string>) => new JsonResult(value, status, headers),
  ok: (value: unknown) => new JsonResult(value, 200),
  noContent: (headers?: Record<string, string>) => new BytesResult(null, 204, headers),
  text: (body: string, status = 200, contentType = 'text/plain; charset=utf-8') =>
    new BytesResult(body, status, { 'content-type': contentType }),
  bytes: (body: string | Buffer, headers: Record<string, string>, status = 200) =>
    new BytesResult(body, status, headers),
  stream: (body: Readable, headers: Record<string, string>, status = 200) => new StreamResult(body, status, headers),
  status: (status: number, headers?: Record<string, string>) => new BytesResult(null, status, headers),
  problem: (
    definition: ErrorDefinition,
    detail?: string,
    extensions?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) => new ProblemResult(definition, detail ?? definition.title, extensions, headers),
  handled: () => new HandledResult(),
  handOff: (handler: (req: IncomingMessage, res: ServerResponse) => void) => new HandOffResult(handler),
};

export function isResult(value: unknown): value is Result {
  return (
    typeof value === 'object' && value !== null && typeof (value as Result).execute === 'function' && 'status' in value
  );
}

function where(ctx: HttpContext) {
  return { instance: ctx.originalPath, traceId: ctx.traceId };
}

export function writeProblem(ctx: HttpContext, body: object, headers: Record<string, string> = {}): void {
  const status = (body as { status: number }).status;
  ctx.response.status = status;
  ctx.response.setHeader('content-type', PROBLEM_CONTENT_TYPE);
  ctx.response.setHeader('cache-control', 'no-store');
  for (const [k, v] of Object.entries(headers)) ctx.response.setHeader(k, v);
  ctx.response.body = JSON.stringify(body);
}

/** Writes the problem for any thrown value (stack only in Development). */
export function writeErrorProblem(ctx: HttpContext, error: unknown, development: boolean): void {
  writeProblem(ctx, problemFromError(error, where(ctx), development));
}
