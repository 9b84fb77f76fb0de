import type { InvocationContext } from '@azure/functions';
import { trace } from '@opentelemetry/api';
import { runInTrace } from '../../../src/host/hop-trace.js';
import { traceparentContext } from '../../../src/host/trace-context.js';

/** Runs `fn` inside the invocation's trace (its W3C `traceParent`), so outbound calls continue it. */
export function runInInvocationTrace<T>(context: InvocationContext, fn: () => Promise<T>): Promise<T> {
  const parent = traceparentContext(context.traceContext?.traceParent ?? undefined);
  return trace.getSpanContext(parent) === undefined ? fn() : runInTrace(parent, fn);
}
