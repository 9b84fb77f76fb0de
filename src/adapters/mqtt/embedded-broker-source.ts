import type { Logger } from 'pino';
import type { IngestionSource, ReadingSink } from '../../realtime/ingestion-source.js';
import type { EmbeddedBroker } from './embedded-broker.js';
import { TELEMETRY_SUBSCRIPTION, telemetryReading } from '../../wire/telemetry-topic.js';
import { whenAborted } from '../../host/lifecycle/when-aborted.js';

/**
 * Reads device telemetry from the host's own embedded broker in-process: one hop less than an MQTT
 * client over loopback, and no client id or credential of the hub's that a device could take over.
 * Publishes the broker refused for their topic are counted with the pipeline's drops.
 */
export class EmbeddedBrokerSource implements IngestionSource {
  readonly name = 'mqtt-embedded';
  readonly #broker: EmbeddedBroker;
  readonly #log: Logger;
  #subscribed = false;

  constructor(options: { broker: EmbeddedBroker; log: Logger }) {
    this.#broker = options.broker;
    this.#log = options.log;
  }

  get connected(): boolean {
    return this.#subscribed && this.#broker.running;
  }

  async run(sink: ReadingSink, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const stopRefusals = this.#broker.onRefusal((refusal) => {
      if (refusal.reason !== 'topic_not_allowed') return;
      sink.refused?.('topic_not_allowed', {
        tenantId: refusal.tenantId,
        deviceId: refusal.deviceId,
        payload: new Uint8Array(0),
      });
    });
    const unsubscribe = await this.#broker.subscribe(TELEMETRY_SUBSCRIPTION, (topic, payload) => {
      sink.offer(telemetryReading(topic, payload));
    });
    this.#subscribed = true;
    this.#log.info({ topic: TELEMETRY_SUBSCRIPTION }, 'embedded broker subscribed');
    await whenAborted(signal);
    this.#subscribed = false;
    stopRefusals();
    await unsubscribe();
  }
}
