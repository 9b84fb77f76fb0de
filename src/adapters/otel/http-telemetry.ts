import type { IncomingMessage } from 'node:http';
import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type { RequestOutcome, RequestTracer } from '../../host/http/request-trace.js';
import { extractTraceContext, newTraceId } from '../../host/trace-context.js';
import type { TelemetrySource } from './telemetry.js';

/** Seconds, as the semantic conventions want HTTP durations, with buckets from 5 ms to 10 s. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/**
 * `TelemetryHub.Http`: a server span per request, a child of the caller's `traceparent` when it
 * sends a valid one (else the root of a new trace), named by method and route template; and
 * `http.server.request.duration` by method, route template and status. Whether the request is
 * sampled is the hub's decision (`decideCaller`), never the caller's flag, unless the caller is a
 * trusted proxy (`trustedPeer`).
 */
export function httpRequestTracer(
  source: TelemetrySource,
  trustedPeer: (req: IncomingMessage) => boolean = () => false,
): RequestTracer {
  const duration = source.histogram('http.server.request.duration', {
    unit: 's',
    description: 'Duration of HTTP server requests.',
    boundaries: DURATION_BUCKETS,
  });
  return (req) => {
    // A peer in Http:TrustedProxies (the gateway) has sampled already: its decision stands, so
    // its recorded client span has this server span as its child, and no child lacks its parent.
    const caller = extractTraceContext(req.headers);
    const parent = trustedPeer(req) ? caller : source.decideCaller(caller);
    const method = req.method ?? 'GET';
    const span = source.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
      parent,
    );
    if (span === undefined) {
      // Not sampled: the caller's trace id (or a new one) for the log, the duration still counted;
      // the context passed on says "not sampled", whatever the caller had asked for.
      return {
        traceId: trace.getSpanContext(parent)?.traceId ?? newTraceId(),
        logFields: undefined,
        context: parent,
        end: (outcome: RequestOutcome) =>
          duration
            .series(`${outcome.method} ${outcome.route} ${outcome.status}`, () => attributesOf(outcome))
            .record(outcome.durationMs / 1000),
      };
    }
    const { traceId, spanId, traceFlags } = span.spanContext();
    return {
      traceId,
      logFields: { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags & 1}` },
      context: trace.setSpan(parent, span),
      end(outcome: RequestOutcome) {
        duration
          .series(`${outcome.method} ${outcome.route} ${outcome.status}`, () => attributesOf(outcome))
          .record(outcome.durationMs / 1000);
        if (span.isRecording()) {
          span.updateName(outcome.route === null ? outcome.method : `${outcome.method} ${outcome.route}`);
          span.setAttributes(attributesOf(outcome));
          // Server spans are errors for 5xx only: a 4xx is the client's mistake (semantic conventions).
          if (outcome.status === null || outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      },
    };
  };
}

function attributesOf(outcome: RequestOutcome): Attributes {
  const attributes: Attributes = { 'http.request.method': outcome.method };
  if (outcome.route !== null) attributes['http.route'] = outcome.route;
  if (outcome.status !== null) attributes['http.response.status_code'] = outcome.status;
  return attributes;
}
