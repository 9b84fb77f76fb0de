import type { Logger } from 'pino';
import type { AppConfig } from '../host/config/app-config.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { ApplicationLifetime } from '../host/lifecycle/application-lifetime.js';
import { categoryLogger } from '../host/logging.js';
import { RedisBackplane } from '../backplane/redis-backplane.js';
import { DeviceRegistry } from '../hub/device-registry.js';
import { Hub } from '../hub/hub.js';
import { IngestionService } from '../ingest/ingestion-service.js';
import { CheckpointStoreService } from '../ingest/eventhubs/checkpoint-store-service.js';
import { EventHubsSource } from '../ingest/eventhubs/eventhubs-source.js';
import { EmbeddedBroker } from '../ingest/mqtt/embedded-broker.js';
import { MqttSource } from '../ingest/mqtt/mqtt-source.js';
import { ReadingPipeline } from '../ingest/reading-pipeline.js';
import type { IngestionSource } from '../ingest/source.js';
import { SimulatorService } from '../simulator/simulator-service.js';

export interface TelemetryServices {
  hub: Hub;
  /** Present when `ConnectionStrings:redis` is set: hub sends reach the other instances. */
  backplane: RedisBackplane | undefined;
  registry: DeviceRegistry;
  pipeline: ReadingPipeline;
  ingestion: IngestionService;
  broker: EmbeddedBroker | undefined;
  /** In start order: backplane, broker, hub, checkpoint store, ingestion, simulator. */
  services: HostedService[];
}

/** The main job: MQTT (embedded or external) → validate → throttle → device groups on the hub. */
export function createTelemetryServices(config: AppConfig, log: Logger, lifetime: ApplicationLifetime): TelemetryServices {
  const registry = new DeviceRegistry({ maxDevices: config.hub.maxDevices });
  const backplane = config.redisUrl
    ? new RedisBackplane({ url: config.redisUrl, hubName: config.hub.name, log: categoryLogger(log, config, 'Hub.Backplane') })
    : undefined;
  // Every instance subscribes to every MQTT topic, so MQTT readings are delivered by each instance
  // to its own clients; only partitioned sources (Event Hubs) need the backplane for readings.
  const partitioned = config.eventHubs.connectionString !== undefined;
  const hub = new Hub({ ...(backplane ? { backplane } : {}), readingsFanOut: partitioned ? 'backplane' : 'local' });
  const pipeline = new ReadingPipeline({
    registry,
    publish: hub.publishReading.bind(hub),
    logger: categoryLogger(log, config, 'Ingestion'),
    now: Date.now,
    monotonicNow: () => performance.now(),
    scheduler: { setTimeout, clearTimeout },
    maxPerSecond: config.throttle.maxPerSecondPerDevice,
  });

  const services: HostedService[] = [];
  // With Event Hubs configured the zero-config embedded broker stays off; MQTT runs only when a
  // broker is configured explicitly.
  const mqttEnabled = config.mqtt.url !== undefined || !partitioned;
  const broker = config.mqtt.url || !mqttEnabled
    ? undefined
    : new EmbeddedBroker({ port: config.mqtt.embeddedPort, log: categoryLogger(log, config, 'Ingestion.Broker') });
  if (backplane) services.push(backplane);
  if (broker) services.push(broker);
  services.push({
    name: 'hub',
    start: async () => undefined,
    // The server already closed sockets when it stopped; anything joined since goes now.
    stop: async () => hub.closeAll('shutdown'),
  });

  const sources: IngestionSource[] = [];
  if (mqttEnabled) {
    sources.push(
      new MqttSource({
        url: () => config.mqtt.url ?? broker!.url,
        clientId: config.mqtt.clientId,
        qos: config.mqtt.qos,
        protocolVersion: broker ? 4 : config.mqtt.protocolVersion,
        log: categoryLogger(log, config, 'Ingestion.Mqtt'),
      }),
    );
  }
  if (config.eventHubs.connectionString) {
    const checkpoints = new CheckpointStoreService(config.redisUrl);
    services.push(checkpoints);
    sources.push(
      new EventHubsSource({
        connectionString: config.eventHubs.connectionString,
        ...(config.eventHubs.name ? { eventHubName: config.eventHubs.name } : {}),
        consumerGroup: config.eventHubs.consumerGroup,
        checkpointStore: checkpoints.store,
        loadBalancingOptions: {
          updateIntervalInMs: config.eventHubs.loadBalancingIntervalMs,
          partitionOwnershipExpirationIntervalInMs: config.eventHubs.ownershipExpirationMs,
        },
        logger: categoryLogger(log, config, 'Ingestion.EventHubs'),
      }),
    );
  }
  const ingestion = new IngestionService({ sources, pipeline, lifetime, log: categoryLogger(log, config, 'Ingestion') });
  services.push(ingestion);

  // The built-in simulator publishes over MQTT; with only Event Hubs, use `npm run simulate -- --eventhubs`.
  if (config.simulator.devices > 0 && mqttEnabled) {
    services.push(
      new SimulatorService({
        brokerUrl: () => config.mqtt.url ?? broker!.url,
        tenant: config.simulator.tenant,
        devices: config.simulator.devices,
        rate: config.simulator.rate,
        log: categoryLogger(log, config, 'Simulator'),
      }),
    );
  }
  return { hub, backplane, registry, pipeline, ingestion, broker, services };
}
