import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { runInTrace } from '../../host/hop-trace.js';
import { formatTraceparent, traceparentContext } from '../../host/trace-context.js';
import type { MessageQueue } from '../../features/outbox/message-queue.js';
import type { TelemetrySource } from './telemetry.js';

/**
 * `TelemetryHub.Queue`: a producer span per published message and a consumer span per delivery
 * handled, on any queue (RabbitMQ, in-process). A message's `traceparent` names its parent: the
 * request that changed the order (kept in the outbox row), whose sampled flag both spans keep; the
 * message leaves with the producer span's id, so the consumer span is its child, and the handler
 * runs inside the consumer span (its database statements are its children).
 */
export function traceQueue(
  queue: MessageQueue,
  source: TelemetrySource,
  options: { system: string; destination: string },
): MessageQueue {
  const base: Attributes = { 'messaging.system': options.system, 'messaging.destination.name': options.destination };
  return {
    async publish(message) {
      const parent = traceparentContext(message.headers.traceparent);
      const span =
        trace.getSpanContext(parent) === undefined
          ? undefined
          : source.startSpan(
              `send ${options.destination}`,
              {
                kind: SpanKind.PRODUCER,
                attributes: { ...base, 'messaging.operation.type': 'send', 'messaging.message.id': message.id },
              },
              parent,
            );
      if (span === undefined) return queue.publish(message);
      try {
        await queue.publish({
          ...message,
          headers: { ...message.headers, traceparent: formatTraceparent(span.spanContext()) },
        });
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
    consume(handler, consumeOptions) {
      return queue.consume(async (delivery) => {
        const parent = traceparentContext(delivery.headers.traceparent);
        const span =
          trace.getSpanContext(parent) === undefined
            ? undefined
            : source.startSpan(
                `process ${options.destination}`,
                {
                  kind: SpanKind.CONSUMER,
                  attributes: {
                    ...base,
                    'messaging.operation.type': 'process',
                    'messaging.message.id': delivery.id,
                    'messaging.message.delivery_count': delivery.attempt,
                  },
                },
                parent,
              );
        if (span === undefined) return handler(delivery);
        try {
          await runInTrace(trace.setSpan(parent, span), () => handler(delivery));
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          throw err;
        } finally {
          span.end();
        }
      }, consumeOptions);
    },
    takeDeadLetter: () => queue.takeDeadLetter(),
    healthy: () => queue.healthy(),
    close: () => queue.close(),
  };
}
