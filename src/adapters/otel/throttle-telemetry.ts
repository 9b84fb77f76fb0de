import type { PipelineStats } from '../../realtime/reading-pipeline.js';
import type { TelemetrySource } from './telemetry.js';

/** `TelemetryHub.Ingestion`: what the per-device throttle conflated (held back, replaced by a newer reading) and emitted. */
export function recordThrottle(source: TelemetrySource, stats: () => PipelineStats): void {
  source.meter
    .createObservableCounter('telemetryhub.throttle.conflations', {
      unit: '{reading}',
      description: 'Readings replaced by a newer one of the same device within the throttle interval.',
    })
    .addCallback((result) => result.observe(stats().conflated));
  source.meter
    .createObservableCounter('telemetryhub.throttle.emitted', {
      unit: '{reading}',
      description: 'Readings the throttle passed on to the hub.',
    })
    .addCallback((result) => result.observe(stats().emitted));
}
