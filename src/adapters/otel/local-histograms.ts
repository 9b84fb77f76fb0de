import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import type {
  AggregationTemporality,
  CollectionResult,
  DataPointType,
  HistogramMetricData,
  MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { systemClock } from '../../host/clock.js';

// The SDK's enum values, spelled out so this module loads without the SDK (it loads only when on).
const CUMULATIVE = 1 as AggregationTemporality.CUMULATIVE;
const HISTOGRAM = 0 as DataPointType.HISTOGRAM;

function hrTime(): HrTime {
  const ms = systemClock.now();
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
}

/**
 * One histogram time series (one attribute set), aggregated in place. The SDK's Histogram.record
 * hashes its attributes on every call (≈ 5 µs with three attributes on the bench machine); a
 * series is looked up once and then costs a bucket search and three additions.
 */
export class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;
  min = Infinity;
  max = -Infinity;

  constructor(
    readonly boundaries: readonly number[],
    readonly attributes: Attributes,
  ) {
    this.counts = new Array<number>(boundaries.length + 1).fill(0);
  }

  record(value: number): void {
    const b = this.boundaries;
    let i = 0;
    // Inclusive upper bounds, as OTLP explicit-bucket histograms define them.
    while (i < b.length && value > b[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }
}

export interface HistogramOptions {
  unit: string;
  description: string;
  boundaries: readonly number[];
}

/** A histogram whose series are created on first use of an attribute set and kept (attribute sets are few and bounded). */
export class LocalHistogram {
  readonly #series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly options: HistogramOptions,
  ) {}

  /** The series of `attributes`, found by `key` (the caller's cheap name for that attribute set). */
  series(key: string, attributes: () => Attributes): HistogramSeries {
    let s = this.#series.get(key);
    if (s === undefined) this.#series.set(key, (s = new HistogramSeries(this.options.boundaries, attributes())));
    return s;
  }

  get all(): IterableIterator<HistogramSeries> {
    return this.#series.values();
  }
}

/**
 * Histograms of named sources, handed to the metric reader as a MetricProducer: each collection
 * reports every series cumulatively, exported beside the SDK's own instruments.
 */
export class LocalHistograms implements MetricProducer {
  readonly #scopes = new Map<string, LocalHistogram[]>();
  readonly #start: HrTime = hrTime();

  create(scope: string, name: string, options: HistogramOptions): LocalHistogram {
    const histogram = new LocalHistogram(name, options);
    const list = this.#scopes.get(scope) ?? [];
    list.push(histogram);
    this.#scopes.set(scope, list);
    return histogram;
  }

  async collect(): Promise<CollectionResult> {
    const now = hrTime();
    const scopeMetrics = [...this.#scopes].map(([scope, histograms]) => ({
      scope: { name: scope },
      metrics: histograms.map(
        (h): HistogramMetricData => ({
          descriptor: {
            name: h.name,
            description: h.options.description,
            unit: h.options.unit,
            valueType: ValueType.DOUBLE,
          },
          aggregationTemporality: CUMULATIVE,
          dataPointType: HISTOGRAM,
          dataPoints: [...h.all].map((s) => ({
            attributes: s.attributes,
            startTime: this.#start,
            endTime: now,
            value: {
              buckets: { boundaries: [...s.boundaries], counts: [...s.counts] },
              sum: s.sum,
              count: s.count,
              ...(s.count > 0 ? { min: s.min, max: s.max } : {}),
            },
          })),
        }),
      ),
    }));
    // The reader keeps the SDK's resource; this one is never read.
    return { resourceMetrics: { resource: undefined as never, scopeMetrics }, errors: [] };
  }
}
