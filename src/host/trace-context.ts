import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface TraceContext {
  traceId: string;
  parentSpanId: string | undefined;
  spanId: string;
  flags: string;
}

/**
 * W3C trace context: continue the caller's trace when `traceparent` is valid, else start a new one.
 * All-zero ids are invalid per the spec and start a new trace.
 */
export function continueTrace(traceparent: string | string[] | undefined): TraceContext {
  const header = Array.isArray(traceparent) ? traceparent[0] : traceparent;
  const m = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  const spanId = randomBytes(8).toString('hex');
  if (m && !/^0+$/.test(m[1]!) && !/^0+$/.test(m[2]!)) {
    return { traceId: m[1]!, parentSpanId: m[2]!, spanId, flags: m[3]! };
  }
  return { traceId: randomBytes(16).toString('hex'), parentSpanId: undefined, spanId, flags: '01' };
}

export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.flags}`;
}
