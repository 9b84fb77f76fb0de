import { ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span, type SpanOptions } from '@opentelemetry/api';
import { ambient } from './ambient.js';
import { formatTraceparent, unsampledTraceparent } from './trace-context.js';

/**
 * Starts a span under `parent`, or gives nothing when the trace is not sampled or nothing records
 * spans (a telemetry source's `startSpan`). Adapters take one of these, never the SDK.
 */
export type SpanStarter = (name: string, options: SpanOptions, parent: Context) => Span | undefined;

/** Runs `fn` with `context` as the trace of everything it does (its awaited and scheduled work too). */
export function runInTrace<T>(context: Context, fn: () => T): T {
  return ambient.run({ tenantId: ambient.getStore()?.tenantId, trace: context }, fn);
}

/** The trace the current work belongs to; the root context outside a sampled trace. */
export function currentTrace(): Context {
  return ambient.getStore()?.trace ?? ROOT_CONTEXT;
}

/**
 * A client or producer span for an outbound call, a child of the current trace; undefined outside
 * a sampled trace, so background work (a relay's poll, a health probe) makes no trace of its own
 * per query.
 */
export function startHopSpan(start: SpanStarter | undefined, name: string, options: SpanOptions): Span | undefined {
  if (start === undefined) return undefined;
  const parent = ambient.getStore()?.trace;
  if (parent === undefined || trace.getSpanContext(parent) === undefined) return undefined;
  return start(name, options, parent);
}

/** Ends a hop span with the outcome of its call: an error sets its status and records the type. */
export function endHopSpan(span: Span | undefined, error?: unknown): void {
  if (span === undefined) return;
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.setAttribute(
      'error.type',
      error instanceof Error ? (((error as { code?: unknown }).code as string | undefined) ?? error.name) : 'Error',
    );
  }
  span.end();
}

/** Runs `call` inside a hop span (when traced), ending it with the call's outcome. */
export async function withHopSpan<T>(
  start: SpanStarter | undefined,
  name: string,
  options: SpanOptions,
  call: () => Promise<T>,
): Promise<T> {
  const span = startHopSpan(start, name, options);
  if (span === undefined) return call();
  try {
    const result = await call();
    span.end();
    return result;
  } catch (err) {
    endHopSpan(span, err);
    throw err;
  }
}

/**
 * The `traceparent` an outbound message or call carries: the hop span's own id when one was
 * recorded; else the current trace's span when it is sampled; else a not-sampled context in the
 * request's trace (`traceId`), so the next hop logs the same trace and records nothing. Never a
 * sampled flag with a span id that no one recorded.
 */
export function outboundTraceparent(span: Span | undefined, traceId?: string): string {
  const context = span?.spanContext() ?? trace.getSpanContext(currentTrace());
  if (context !== undefined) return formatTraceparent(context);
  return unsampledTraceparent(traceId);
}
