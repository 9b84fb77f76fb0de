import type { IncomingMessage } from 'node:http';
import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { traceIdOf } from '../trace-context.js';

/** What the request log and the telemetry know of one request when it ends. */
export interface RequestOutcome {
  method: string;
  /** The endpoint's route template; null when none was selected. */
  route: string | null;
  /** Null when the client went away before a status was written. */
  status: number | null;
  durationMs: number;
}

/** One request's trace: its id (logged, and in problem responses), its context, and its end. */
export interface RequestTrace {
  readonly traceId: string;
  /** The server span's trace fields for the request log line (`trace_id`, `span_id`, `trace_flags`); undefined without a span. */
  readonly logFields: Readonly<Record<string, string>> | undefined;
  /**
   * The server span's context, passed explicitly (there is no ambient context): an outbound call
   * made for this request sends `injectTraceContext(context)`, its own span id in the same trace.
   */
  readonly context: Context;
  end(outcome: RequestOutcome): void;
}

/** Starts a request's trace (the server span when HTTP telemetry is subscribed). */
export type RequestTracer = (req: IncomingMessage) => RequestTrace;

/** Telemetry off: the caller's trace id (or a new one) for the log; no span, nothing recorded. */
export const untracedRequest: RequestTracer = (req) => ({
  traceId: traceIdOf(req.headers),
  logFields: undefined,
  context: ROOT_CONTEXT,
  end: endNothing,
});

const endNothing = (): void => undefined;
