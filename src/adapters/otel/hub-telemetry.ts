import { ROOT_CONTEXT, SpanKind, trace, type Attributes, type Context } from '@opentelemetry/api';
import type { Clock } from '../../host/clock.js';
import { formatTraceparent, traceparentContext } from '../../host/trace-context.js';
import type { DeliveryRecorder } from '../../wire/delivery-recorder.js';
import type { OutboundMessage } from '../../wire/message.js';
import type { Reading } from '../../wire/reading.js';
import type { HistogramSeries, LocalHistogram } from './local-histograms.js';
import type { TelemetrySource } from './telemetry.js';

/** Delivery latency buckets, seconds: a reading is expected on screen within tens of milliseconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type Transport = 'socketio' | 'webpubsub';

/** What the hub telemetry observes of the hub: its size now. */
export interface HubSize {
  /** Live connections by transport name. */
  readonly connectionsByTransport: ReadonlyMap<string, number>;
  readonly groupCount: number;
}

/**
 * `TelemetryHub.Hub`: a send span per reading (continuing the reading's trace, with a link to the
 * ingestion span it came from), a write span per socket write of a sampled reading, delivery latency
 * (`receivedAt` → handed to the socket), and counts of deliveries, conflations, slow consumers,
 * connections (by transport) and groups. Counts are plain integers read when metrics are collected, so the fan-out
 * path pays an increment, not an SDK call.
 */
export class HubTelemetry {
  readonly #source: TelemetrySource;
  readonly #clock: Clock;
  readonly #latency: LocalHistogram;
  readonly #recorders: TransportRecorder[] = [];

  constructor(source: TelemetrySource, options: { hub: HubSize; clock: Clock }) {
    this.#source = source;
    this.#clock = options.clock;
    const { meter } = source;
    this.#latency = source.histogram('telemetryhub.delivery.duration', {
      unit: 's',
      description: 'From a reading received by the hub to its message handed to a subscriber socket.',
      boundaries: LATENCY_BUCKETS,
    });
    const perTransport = (name: string, unit: string, description: string, count: (r: TransportRecorder) => number) =>
      meter.createObservableCounter(name, { unit, description }).addCallback((result) => {
        for (const r of this.#recorders) result.observe(count(r), r.attributes);
      });
    perTransport(
      'telemetryhub.hub.deliveries',
      '{message}',
      'Messages handed to subscriber sockets.',
      (r) => r.delivered,
    );
    perTransport(
      'telemetryhub.hub.conflations',
      '{message}',
      'Pending messages of slow subscribers replaced by newer ones of the same device.',
      (r) => r.replaced,
    );
    perTransport(
      'telemetryhub.hub.slow_consumers',
      '{connection}',
      'Connections closed for falling too far behind.',
      (r) => r.slow,
    );
    meter
      .createObservableUpDownCounter('telemetryhub.hub.connections', {
        unit: '{connection}',
        description: 'Live subscriber connections on this instance, by transport.',
      })
      .addCallback((result) => {
        const counts = options.hub.connectionsByTransport;
        // Every instrumented transport, at 0 before its first connection: a dashboard shows it from the start.
        for (const r of this.#recorders) if (!counts.has(r.transport)) result.observe(0, r.attributes);
        for (const [transport, n] of counts) result.observe(n, { 'telemetryhub.transport': transport });
      });
    meter
      .createObservableUpDownCounter('telemetryhub.hub.groups', {
        unit: '{group}',
        description: 'Groups with at least one member on this instance.',
      })
      .addCallback((result) => result.observe(options.hub.groupCount));
  }

  /** The hub's publishReading inside a send span; the reading leaves with the span's traceparent. */
  publish(publish: (reading: Reading) => void): (reading: Reading) => void {
    const source = this.#source;
    return (reading) => {
      const parent = traceparentContext(reading.traceparent);
      const from = trace.getSpanContext(parent);
      const span = source.startSpan(
        'send device',
        { kind: SpanKind.PRODUCER, ...(from ? { links: [{ context: from }] } : {}) },
        parent,
      );
      if (span === undefined) return publish(reading);
      span.setAttributes({
        'messaging.operation.type': 'send',
        'messaging.destination.name': `device:${reading.tenantId}:${reading.deviceId}`,
        'telemetryhub.seq': reading.seq,
      });
      reading.traceparent = formatTraceparent(span.spanContext());
      try {
        publish(reading);
      } finally {
        span.end();
      }
    };
  }

  /** The recorder one transport's connections share. */
  deliveries(transport: Transport): DeliveryRecorder {
    const recorder = new TransportRecorder(transport, this.#source, this.#latency, this.#clock);
    this.#recorders.push(recorder);
    return recorder;
  }
}

class TransportRecorder implements DeliveryRecorder {
  readonly transport: Transport;
  delivered = 0;
  replaced = 0;
  slow = 0;
  readonly attributes: Attributes;
  readonly #source: TelemetrySource;
  readonly #latency: HistogramSeries;
  readonly #clock: Clock;
  /** The last sampled traceparent and its context: a fan-out writes one message to many sockets. */
  #lastTraceparent: string | undefined = undefined;
  #lastContext: Context = ROOT_CONTEXT;

  constructor(transport: Transport, source: TelemetrySource, latency: LocalHistogram, clock: Clock) {
    this.transport = transport;
    this.attributes = { 'telemetryhub.transport': transport };
    this.#source = source;
    this.#latency = latency.series(transport, () => this.attributes);
    this.#clock = clock;
  }

  written(message: OutboundMessage): void {
    this.delivered++;
    if (message.kind !== 'reading') return;
    const receivedAt = (message.data as { receivedAt?: unknown }).receivedAt;
    if (typeof receivedAt === 'number') this.#latency.record(Math.max(0, this.#clock.now() - receivedAt) / 1000);
    const tp = message.traceparent;
    // Only sampled sends get write spans ('1' ends a traceparent we formatted with the sampled flag).
    if (tp === undefined || tp.charCodeAt(tp.length - 1) !== 49) return;
    if (tp !== this.#lastTraceparent) {
      this.#lastTraceparent = tp;
      this.#lastContext = traceparentContext(tp);
    }
    this.#source.tracer
      .startSpan('write', { kind: SpanKind.INTERNAL, attributes: this.attributes }, this.#lastContext)
      .end();
  }

  conflated(): void {
    this.replaced++;
  }

  overflowed(): void {
    this.slow++;
  }
}
