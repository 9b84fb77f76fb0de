import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Backplane } from '../../realtime/backplane.js';
import { formatTraceparent, traceparentContext } from '../../host/trace-context.js';
import type { TelemetrySource } from './telemetry.js';

/**
 * `TelemetryHub.Backplane`: the backplane as the hub sees it, counting what it publishes to and
 * receives from the other instances (semantic-convention messaging metrics, system `redis`), and
 * the Redis backplane's errors by `error.type` (every type from the start, at 0); a receive span
 * per sampled send that arrives from another instance, linked to the sender's span.
 */
export function instrumentBackplane(
  backplane: Backplane,
  source: TelemetrySource,
  errors: ReadonlyMap<string, number>,
): Backplane {
  let published = 0;
  let received = 0;
  const attributes = { 'messaging.system': 'redis' };
  source.meter
    .createObservableCounter('messaging.client.sent.messages', {
      unit: '{message}',
      description: 'Messages published to the backplane.',
    })
    .addCallback((result) => result.observe(published, { ...attributes, 'messaging.operation.name': 'publish' }));
  source.meter
    .createObservableCounter('messaging.client.consumed.messages', {
      unit: '{message}',
      description: 'Messages received from the backplane.',
    })
    .addCallback((result) => result.observe(received, { ...attributes, 'messaging.operation.name': 'receive' }));
  source.meter
    .createObservableCounter('telemetryhub.backplane.errors', {
      unit: '{error}',
      description:
        'Backplane errors, by type: connection, not_connected (a publish dropped), publish, subscribe, malformed.',
    })
    .addCallback((result) => {
      for (const [type, n] of errors) result.observe(n, { ...attributes, 'error.type': type });
    });
  return {
    publish(envelope, fence) {
      published++;
      backplane.publish(envelope, fence);
    },
    onMessage(handler) {
      backplane.onMessage((envelope) => {
        received++;
        const from = envelope.message.traceparent;
        if (from === undefined) return handler(envelope);
        // Every watching instance receives the same send: a parent would give one span many
        // children across processes, so the receive starts its own trace, linked to the send. Only
        // sampled sends travel with their context; what the sender's sampler kept is kept here.
        const link = trace.getSpanContext(traceparentContext(from));
        if (link === undefined)
          return handler({ ...envelope, message: { ...envelope.message, traceparent: undefined } });
        const span = source.tracer.startSpan(
          `receive ${envelope.kind === 'group' && envelope.group.startsWith('device:') ? 'device' : envelope.kind}`,
          {
            kind: SpanKind.CONSUMER,
            root: true,
            links: [{ context: link }],
            attributes: {
              ...attributes,
              'messaging.operation.type': 'receive',
              ...(envelope.kind === 'group' ? { 'messaging.destination.name': envelope.group } : {}),
            },
          },
          ROOT_CONTEXT,
        );
        try {
          // The local writes are the receive span's children.
          handler({
            ...envelope,
            message: { ...envelope.message, traceparent: formatTraceparent(span.spanContext()) },
          });
        } finally {
          span.end();
        }
      });
    },
    watch: (group) => backplane.watch(group),
    unwatch: (group) => backplane.unwatch(group),
    close: () => backplane.close(),
  };
}
