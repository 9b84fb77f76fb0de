import type { IncomingMessage } from 'node:http';
import { trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { injectTraceContext, traceIdOf, type Carrier } from '../../../src/host/trace-context.js';
import { httpRequestTracer } from '../../../src/adapters/otel/http-telemetry.js';
import { LocalHistograms } from '../../../src/adapters/otel/local-histograms.js';

/**
 * The level-1 cases of the W3C trace-context test suite (its harness cannot be fetched on this
 * machine), re-expressed against our service: a request arrives with the case's headers, the hub
 * starts its server span, and the traceparent/tracestate it would send on an outbound call are
 * checked as the suite's harness checks them.
 */
const provider = new BasicTracerProvider();
const histograms = new LocalHistograms();
const tracer = httpRequestTracer({
  name: 'TelemetryHub.Http',
  tracer: provider.getTracer('t'),
  meter: new MeterProvider().getMeter('t'),
  histogram: (name, options) => histograms.create('t', name, options),
  // Every trace sampled: the cases are about the ids the service continues and sends on.
  startSpan: (name, options, parent) => provider.getTracer('t').startSpan(name, options, parent),
  // The caller's flag as sent: these cases are about the ids and headers, sampling is tested apart.
  decideCaller: (parent) => parent,
});

const TRACE = '12345678901234567890123456789012';
const PARENT = '1234567890123456';
const VALID = `00-${TRACE}-${PARENT}-01`;

/** What the service sends downstream after receiving `headers`. */
function outbound(headers: Carrier): {
  traceId: string;
  parentId: string;
  flags: string;
  tracestate: string | undefined;
} {
  const t = tracer({ method: 'GET', headers } as unknown as IncomingMessage);
  const out = injectTraceContext(t.context);
  t.end({ method: 'GET', route: null, status: 200, durationMs: 1 });
  const [version, traceId, parentId, flags] = out.traceparent!.split('-');
  expect(version).toBe('00');
  // The id the request is logged and answered with is the outbound trace id.
  expect(t.traceId).toBe(traceId);
  return { traceId: traceId!, parentId: parentId!, flags: flags!, tracestate: out.tracestate };
}

const continues = (headers: Carrier) => {
  const out = outbound(headers);
  expect(out.traceId).toBe(TRACE);
  expect(out.parentId).not.toBe(PARENT); // its own span id, never the caller's
  return out;
};
const restarts = (headers: Carrier) => {
  const out = outbound(headers);
  expect(out.traceId).not.toBe(TRACE);
  expect(out.traceId).not.toMatch(/^0+$/);
  return out;
};

describe('W3C trace context, level 1 (the test suite cases as our tests)', () => {
  it('both headers missing: a new trace', () => {
    restarts({});
  });

  it('traceparent without tracestate: continued, and the sampled flag kept', () => {
    expect(continues({ traceparent: VALID }).flags).toBe('01');
    expect(continues({ traceparent: `00-${TRACE}-${PARENT}-00` }).flags).toBe('00');
  });

  it('two traceparent headers: a new trace', () => {
    restarts({ traceparent: [VALID, `00-${TRACE}-${'9'.repeat(16)}-01`] });
  });

  it.each([
    ['version 00 with more fields', `${VALID}-what-the-future-will-be-like`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['illegal version characters', `.0-${TRACE}-${PARENT}-01`],
    ['illegal version characters', `0.-${TRACE}-${PARENT}-01`],
    ['version too long', `000-${TRACE}-${PARENT}-01`],
    ['version too short', `0-${TRACE}-${PARENT}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['illegal trace id characters', `00-${TRACE.slice(0, 31)}.-${PARENT}-01`],
    ['upper-case trace id', `00-ABCDEF78901234567890123456789012-${PARENT}-01`],
    ['trace id too long', `00-${TRACE}0-${PARENT}-01`],
    ['trace id too short', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['illegal parent id characters', `00-${TRACE}-${PARENT.slice(0, 15)}.-01`],
    ['parent id too long', `00-${TRACE}-${PARENT}0-01`],
    ['parent id too short', `00-${TRACE}-${PARENT.slice(1)}-01`],
    ['illegal flag characters', `00-${TRACE}-${PARENT}-.0`],
    ['flags too long', `00-${TRACE}-${PARENT}-001`],
    ['flags too short', `00-${TRACE}-${PARENT}-1`],
  ])('traceparent with %s: a new trace', (_what, traceparent) => {
    restarts({ traceparent });
  });

  it('a future version with more fields: continued, sent on as version 00', () => {
    continues({ traceparent: `cc-${TRACE}-${PARENT}-01-what-the-future-will-be-like` });
  });

  it('optional white space around the traceparent: continued', () => {
    continues({ traceparent: ` ${VALID}` });
    continues({ traceparent: `${VALID}\t` });
  });

  it('tracestate is passed on with the continued trace, and ignored without a traceparent', () => {
    expect(continues({ traceparent: VALID, tracestate: 'foo=1,bar=2' }).tracestate).toBe('foo=1,bar=2');
    expect(continues({ traceparent: VALID, tracestate: '' }).tracestate).toBeUndefined();
    expect(restarts({ tracestate: 'foo=1' }).tracestate).toBeUndefined();
  });

  it('several tracestate headers are combined in order', () => {
    expect(continues({ traceparent: VALID, tracestate: ['foo=1', 'bar=2'] }).tracestate).toBe('foo=1,bar=2');
  });

  it('tracestate members: at most 32 passed on; a member with an illegal key or value is not', () => {
    const members = Array.from({ length: 33 }, (_, i) => `k${i}=v${i}`);
    expect(
      continues({ traceparent: VALID, tracestate: members.slice(0, 32).join(',') }).tracestate!.split(','),
    ).toHaveLength(32);
    expect(
      continues({ traceparent: VALID, tracestate: members.join(',') }).tracestate!.split(',').length,
    ).toBeLessThanOrEqual(32);
    expect(continues({ traceparent: VALID, tracestate: 'foo=1,BAR=2' }).tracestate).toBe('foo=1');
    expect(continues({ traceparent: VALID, tracestate: 'foo=1,bar=a=b' }).tracestate).toBe('foo=1');
    expect(continues({ traceparent: VALID, tracestate: 'foo=1,tenant@vendor=2' }).tracestate).toBe(
      'foo=1,tenant@vendor=2',
    );
  });

  it('telemetry off: the request log and problem responses still continue the caller’s trace id', () => {
    expect(traceIdOf({ traceparent: VALID })).toBe(TRACE);
    expect(traceIdOf({ traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` })).not.toBe(TRACE);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
