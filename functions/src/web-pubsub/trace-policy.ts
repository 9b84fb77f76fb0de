import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { WebPubSubServiceClientOptions } from '@azure/web-pubsub';
import { startHopSpan } from '../../../src/host/hop-trace.js';
import { formatTraceparent } from '../../../src/host/trace-context.js';

type Policy = NonNullable<WebPubSubServiceClientOptions['additionalPolicies']>[number]['policy'];

/**
 * Every management API call carries `traceparent`: a client span's, a child of the invocation's
 * trace (the one the Functions host started; see `runInInvocationTrace`). The span is recorded by
 * the tracer provider the function app registers (`@azure/monitor-opentelemetry`, an OTLP SDK);
 * without one the API's no-op tracer hands back the invocation's own span, whose id is sent then:
 * never an id that nothing recorded. The sampled flag is the invocation's.
 */
export const tracePolicy: Policy = {
  name: 'telemetryHubTraceparent',
  async sendRequest(request, next) {
    const tracer = trace.getTracer('telemetry-hub-functions');
    const url = new URL(request.url);
    const span = startHopSpan((name, options, parent) => tracer.startSpan(name, options, parent), request.method, {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': request.method,
        'server.address': url.hostname,
        'url.full': `${url.origin}${url.pathname}`,
      },
    });
    if (span === undefined) return next(request);
    request.headers.set('traceparent', formatTraceparent(span.spanContext()));
    try {
      const response = await next(request);
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  },
};
