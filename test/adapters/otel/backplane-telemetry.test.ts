import { metrics, trace } from '@opentelemetry/api';
import { MemoryBackplaneBus } from '../../../src/adapters/memory/memory-backplane.js';
import { instrumentBackplane } from '../../../src/adapters/otel/backplane-telemetry.js';
import { LocalHistograms } from '../../../src/adapters/otel/local-histograms.js';
import type { TelemetrySource } from '../../../src/adapters/otel/telemetry.js';
import { runBackplaneContract } from '../../realtime/backplane.case.js';

// The instrumented backplane only counts and traces: what it carries is the contract's alone (its
// metrics are checked in operator-metrics.test.ts).
const histograms = new LocalHistograms();
const source: TelemetrySource = {
  name: 'TelemetryHub.Backplane',
  tracer: trace.getTracer('contract'),
  meter: metrics.getMeter('contract'),
  histogram: (metric, options) => histograms.create('contract', metric, options),
  startSpan: () => undefined,
  decideCaller: (parent) => parent,
};

runBackplaneContract('instrumented (telemetry) MemoryBackplane', async (size) => {
  const bus = new MemoryBackplaneBus();
  const nodes = Array.from({ length: size }, () => instrumentBackplane(bus.node(), source, new Map()));
  return { nodes, dispose: async () => void (await Promise.all(nodes.map((n) => n.close()))) };
});
