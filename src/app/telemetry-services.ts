import type { Logger } from 'pino';
import type { Clock } from '../host/clock.js';
import type { AppConfig } from './app-config.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { ApplicationLifetime } from '../host/lifecycle/application-lifetime.js';
import { categoryLogger } from '../host/logging.js';
import { RedisBackplane } from '../backplane/redis-backplane.js';
import type { HistoryReader } from '../history/history-reader.js';
import { MemoryHistory } from '../history/memory-history.js';
import { CatchUp } from '../hub/catch-up.js';
import { DeviceRegistry } from '../hub/device-registry.js';
import { Hub } from '../hub/hub.js';
import { IngestionService } from '../ingest/ingestion-service.js';
import { CheckpointStoreService } from '../ingest/eventhubs/checkpoint-store-service.js';
import { EventHubsSource } from '../ingest/eventhubs/eventhubs-source.js';
import { EmbeddedBroker } from '../ingest/mqtt/embedded-broker.js';
import { EmbeddedBrokerSource } from '../ingest/mqtt/embedded-broker-source.js';
import { MqttSource } from '../ingest/mqtt/mqtt-source.js';
import { ReadingPipeline } from '../ingest/reading-pipeline.js';
import type { IngestionSource } from '../ingest/source.js';
import type { Reading } from '../protocol/reading.js';
import { SimulatorService } from '../simulator/simulator-service.js';
import type { DeliveryRecorder } from '../hub/delivery-recorder.js';
import { instrumentBackplane } from '../telemetry/backplane-telemetry.js';
import { HubTelemetry } from '../telemetry/hub-telemetry.js';
import { IngestionTelemetry } from '../telemetry/ingestion-telemetry.js';
import { Sources } from '../telemetry/source-names.js';
import { Telemetry } from '../telemetry/telemetry.js';
import { recordThrottle } from '../telemetry/throttle-telemetry.js';

export interface TelemetryServices {
  hub: Hub;
  /** Present when `ConnectionStrings:redis` is set: hub sends reach the other instances. */
  backplane: RedisBackplane | undefined;
  registry: DeviceRegistry;
  /** What a subscribe with `since` replays from. */
  history: HistoryReader;
  catchUp: CatchUp;
  pipeline: ReadingPipeline;
  ingestion: IngestionService;
  broker: EmbeddedBroker | undefined;
  /** Per transport, what its connections tell telemetry; undefined when `TelemetryHub.Hub` is not subscribed. */
  deliveries: { socketio: DeliveryRecorder | undefined; webpubsub: DeliveryRecorder | undefined };
  /** In start order: backplane, broker, hub, checkpoint store, ingestion, simulator. */
  services: HostedService[];
}

/** The main job: MQTT (embedded, external or both) or Event Hubs → validate → throttle → device groups on the hub. */
/**
 * `history` is the stored history: `accepted` receives every accepted reading before the throttle, and
 * catch-up reads `reader`. Without it, catch-up reads the newest readings of each device kept in memory.
 */
export function createTelemetryServices(
  config: AppConfig,
  log: Logger,
  lifetime: ApplicationLifetime,
  clock: Clock,
  history?: { accepted(reading: Reading): void; reader: HistoryReader },
  otel: Telemetry = Telemetry.off,
): TelemetryServices {
  const registry = new DeviceRegistry({ maxDevices: config.hub.maxDevices, maxDevicesPerTenant: config.hub.maxDevicesPerTenant });
  const backplane = config.redisUrl
    ? new RedisBackplane({ url: config.redisUrl, hubName: config.hub.name, log: categoryLogger(log, config, 'Hub.Backplane') })
    : undefined;
  // Every instance subscribes to every MQTT topic, so MQTT readings are delivered by each instance
  // to its own clients; only partitioned sources (Event Hubs) need the backplane for readings.
  const partitioned = config.eventHubs.connectionString !== undefined;
  const backplaneSource = otel.source(Sources.backplane);
  const hub = new Hub({
    ...(backplane ? { backplane: backplaneSource ? instrumentBackplane(backplane, backplaneSource) : backplane } : {}),
    readingsFanOut: partitioned ? 'backplane' : 'local',
    maxGroupsPerConnection: config.hub.maxGroupsPerConnection,
    maxConnectionsPerUser: config.hub.maxConnectionsPerUser,
    maxConnectionsPerTenant: config.hub.maxConnectionsPerTenant,
  });
  // History off: a catch-up still covers a short absence, from the newest readings kept in memory.
  const memory = history ? undefined : new MemoryHistory({ maxPerDevice: config.hub.catchUpMax, maxDevices: config.hub.maxDevices });
  const reader = history?.reader ?? memory!;
  const accepted = history ? (reading: Reading) => history.accepted(reading) : (reading: Reading) => memory!.record(reading);
  const catchUp = new CatchUp({ hub, history: reader, max: config.hub.catchUpMax, log: categoryLogger(log, config, 'Hub') });
  const hubSource = otel.source(Sources.hub);
  const hubTelemetry = hubSource ? new HubTelemetry(hubSource, { hub, clock }) : undefined;
  const publish = hub.publishReading.bind(hub);
  const pipeline = new ReadingPipeline({
    registry,
    publish: hubTelemetry ? hubTelemetry.publish(publish) : publish,
    logger: categoryLogger(log, config, 'Ingestion'),
    clock,
    maxPerSecond: config.throttle.maxPerSecondPerDevice,
    accepted,
  });

  const throttleSource = otel.source(Sources.ingestion);
  if (throttleSource) recordThrottle(throttleSource, () => pipeline.stats());
  const mqttSource = otel.source(Sources.mqtt);
  const mqttTelemetry = mqttSource ? new IngestionTelemetry(mqttSource, { spanName: 'process tenants/{tenantId}/devices/{deviceId}/telemetry' }) : undefined;
  const eventHubsSource = otel.source(Sources.eventHubs);
  const eventHubsTelemetry = eventHubsSource ? new IngestionTelemetry(eventHubsSource, { spanName: 'process eventhubs' }) : undefined;

  const services: HostedService[] = [];
  // `Ingestion:Mqtt:Embedded` (Development's default when no broker is configured) runs the closed
  // embedded broker; `ConnectionStrings:mqtt` adds a subscription to an external broker.
  const broker = config.mqtt.embedded
    ? new EmbeddedBroker({
        port: config.mqtt.embeddedPort,
        host: config.mqtt.embeddedHost,
        deviceKey: config.mqtt.deviceKey!,
        maxPacketBytes: config.mqtt.maxPacketBytes,
        maxConnections: config.mqtt.maxConnections,
        maxConnectionsPerIp: config.mqtt.maxConnectionsPerIp,
        log: categoryLogger(log, config, 'Ingestion.Broker'),
      })
    : undefined;
  if (backplane) services.push(backplane);
  if (broker) services.push(broker);
  services.push({
    name: 'hub',
    start: async () => undefined,
    // The server already closed sockets when it stopped; anything joined since goes now.
    stop: async () => hub.closeAll('shutdown'),
  });

  const sources: IngestionSource[] = [];
  const mqtt = (source: IngestionSource) => sources.push(mqttTelemetry ? mqttTelemetry.instrument(source) : source);
  if (broker) mqtt(new EmbeddedBrokerSource({ broker, log: categoryLogger(log, config, 'Ingestion.Mqtt') }));
  if (config.mqtt.url !== undefined) {
    mqtt(
      new MqttSource({
        url: () => config.mqtt.url!,
        clientId: config.mqtt.clientId,
        qos: config.mqtt.qos,
        protocolVersion: config.mqtt.protocolVersion,
        log: categoryLogger(log, config, 'Ingestion.Mqtt'),
      }),
    );
  }
  if (!broker && config.mqtt.url === undefined && !config.eventHubs.connectionString) {
    // Legitimate when readings arrive only through the management API (the serverless path), but
    // more often an upgrade from when the embedded broker ran everywhere: say so at start.
    log.warn(
      { keys: ['ConnectionStrings:mqtt', 'ConnectionStrings:eventhubs', 'Ingestion:Mqtt:Embedded'] },
      'no ingestion source configured; devices cannot publish to this hub',
    );
  }
  if (config.eventHubs.connectionString) {
    const checkpoints = new CheckpointStoreService(config.redisUrl);
    services.push(checkpoints);
    const eventHubs = new EventHubsSource({
      connectionString: config.eventHubs.connectionString,
      ...(config.eventHubs.name ? { eventHubName: config.eventHubs.name } : {}),
      consumerGroup: config.eventHubs.consumerGroup,
      checkpointStore: checkpoints.store,
      tenancy: config.eventHubs.tenancy,
      loadBalancingOptions: {
        updateIntervalInMs: config.eventHubs.loadBalancingIntervalMs,
        partitionOwnershipExpirationIntervalInMs: config.eventHubs.ownershipExpirationMs,
      },
      logger: categoryLogger(log, config, 'Ingestion.EventHubs'),
    });
    sources.push(eventHubsTelemetry ? eventHubsTelemetry.instrument(eventHubs) : eventHubs);
  }
  const ingestion = new IngestionService({ sources, pipeline, lifetime, log: categoryLogger(log, config, 'Ingestion') });
  services.push(ingestion);

  // The built-in simulator publishes over MQTT; with only Event Hubs, use `npm run simulate -- --eventhubs`.
  if (config.simulator.devices > 0 && (broker || config.mqtt.url !== undefined)) {
    if (!config.mqtt.url && config.simulator.devices > config.mqtt.maxConnectionsPerIp) {
      log.warn(
        { devices: config.simulator.devices, maxConnectionsPerIp: config.mqtt.maxConnectionsPerIp },
        'simulator devices exceed Ingestion:Mqtt:MaxConnectionsPerIp; the rest cannot connect',
      );
    }
    services.push(
      new SimulatorService({
        brokerUrl: () => config.mqtt.url ?? broker!.url,
        // Devices of the embedded broker authenticate; an external broker has rules of its own.
        deviceKey: config.mqtt.url ? undefined : config.mqtt.deviceKey,
        tenant: config.simulator.tenant,
        devices: config.simulator.devices,
        rate: config.simulator.rate,
        log: categoryLogger(log, config, 'Simulator'),
      }),
    );
  }
  const deliveries = { socketio: hubTelemetry?.deliveries('socketio'), webpubsub: hubTelemetry?.deliveries('webpubsub') };
  return { hub, backplane, registry, history: reader, catchUp, pipeline, ingestion, broker, deliveries, services };
}
