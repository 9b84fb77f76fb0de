import { randomFillSync } from 'node:crypto';
import {
  ROOT_CONTEXT,
  trace,
  type Context,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
// The propagator's own module: the package index loads all of core and the semantic conventions
// (~0.2 s at every start, telemetry on or off). The version is pinned exactly in package.json.
import { W3CTraceContextPropagator } from '@opentelemetry/core/build/src/trace/W3CTraceContextPropagator.js';

/** Headers as Node and message transports give them: one value, several, or none. */
export type Carrier = Readonly<Record<string, string | string[] | undefined>>;

/**
 * W3C trace context by the OpenTelemetry API's propagator, used directly (not the global one) so
 * the request log's trace id continues a caller's trace even with telemetry off.
 */
const propagator = new W3CTraceContextPropagator();

const getter: TextMapGetter<Carrier> = {
  get: (carrier, key) => {
    const value = carrier[key];
    // Two `traceparent` headers are ambiguous: W3C trace context says restart the trace.
    if (Array.isArray(value)) return key === 'traceparent' && value.length > 1 ? undefined : value;
    return value;
  },
  keys: (carrier) => Object.keys(carrier),
};

const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** The caller's trace context from `traceparent`/`tracestate`; the root context when absent or invalid. */
export function extractTraceContext(carrier: Carrier): Context {
  return propagator.extract(ROOT_CONTEXT, carrier, getter);
}

/** The context a single `traceparent` (a message property) names; root when absent or invalid. */
export function traceparentContext(traceparent: string | undefined): Context {
  return traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, { traceparent }, getter);
}

/** `traceparent` (and `tracestate`) of a context's span: what an outbound call or message carries. */
export function injectTraceContext(ctx: Context, carrier: Record<string, string> = {}): Record<string, string> {
  propagator.inject(ctx, carrier, setter);
  return carrier;
}

/** The `traceparent` of a span context (only the sampled flag is propagated, the one flag level 1 defines). */
export function formatTraceparent(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-0${spanContext.traceFlags & 1}`;
}

/**
 * The trace id a request is logged and answered with: the caller's when its `traceparent` is
 * valid, else a new one (a hop that stripped the header starts a new trace).
 */
export function traceIdOf(carrier: Carrier): string {
  // Most requests carry no trace context: no need to ask the propagator.
  if (carrier.traceparent === undefined) return newTraceId();
  return trace.getSpanContext(extractTraceContext(carrier))?.traceId ?? newTraceId();
}

export function newTraceId(): string {
  return randomHex(16);
}

/**
 * The `traceparent` of a trace that was not sampled (in `traceId`, else a new one): later hops keep
 * the decision without a span, and log the same trace id.
 */
export function unsampledTraceparent(traceId: string = randomHex(16)): string {
  return `00-${traceId}-${randomHex(8)}-00`;
}

/**
 * Random ids from a pool refilled 4 KiB at a time: one randomBytes call per request was 7.6 % of a
 * request's CPU through the whole pipeline (bench/). Same randomness, fewer system calls.
 */
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}
