import type { Backplane } from '../hub/backplane.js';
import type { TelemetrySource } from './telemetry.js';

/**
 * `TelemetryHub.Backplane`: the backplane as the hub sees it, counting what it publishes to and
 * receives from the other instances (semantic-convention messaging metrics, system `redis`).
 */
export function instrumentBackplane(backplane: Backplane, source: TelemetrySource): Backplane {
  let published = 0;
  let received = 0;
  const attributes = { 'messaging.system': 'redis' };
  source.meter
    .createObservableCounter('messaging.client.sent.messages', { unit: '{message}', description: 'Messages published to the backplane.' })
    .addCallback((result) => result.observe(published, { ...attributes, 'messaging.operation.name': 'publish' }));
  source.meter
    .createObservableCounter('messaging.client.consumed.messages', { unit: '{message}', description: 'Messages received from the backplane.' })
    .addCallback((result) => result.observe(received, { ...attributes, 'messaging.operation.name': 'receive' }));
  return {
    publish(envelope) {
      published++;
      backplane.publish(envelope);
    },
    onMessage(handler) {
      backplane.onMessage((envelope) => {
        received++;
        handler(envelope);
      });
    },
    close: () => backplane.close(),
  };
}
