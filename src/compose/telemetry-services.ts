import type { Logger } from 'pino';
import type { Clock } from '../host/clock.js';
import type { AppConfig } from './app-config.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { ApplicationLifetime } from '../host/lifecycle/application-lifetime.js';
import { categoryLogger } from '../host/logging.js';
import { RedisBackplane } from '../adapters/redis/redis-backplane.js';
import { LeasedSource } from '../realtime/leased-source.js';
import { partitionOfTopic } from '../realtime/ingest-partitions.js';
import { partitionSuffix, type RedisIngestLease } from '../adapters/redis/redis-ingest-lease.js';
import type { RedisPeerConnections } from '../adapters/redis/redis-peer-connections.js';
import type { SharedLastValues } from '../adapters/redis/shared-last-values.js';
import { createClusterParts } from './cluster-wiring.js';
import type { HistoryReader } from '../realtime/history-reader.js';
import { MemoryHistory } from '../adapters/memory/memory-history.js';
import { backplaneGapRecovery } from '../realtime/backplane-gap.js';
import { CatchUp } from '../realtime/catch-up.js';
import { DeviceRegistry } from '../realtime/device-registry.js';
import { Hub } from '../realtime/hub.js';
import { IngestionService } from '../realtime/ingestion-service.js';
import { CheckpointStoreService } from './checkpoint-store-service.js';
import { EventHubsSource } from '../adapters/eventhubs/eventhubs-source.js';
import { EmbeddedBroker } from '../adapters/mqtt/embedded-broker.js';
import { EmbeddedBrokerSource } from '../adapters/mqtt/embedded-broker-source.js';
import { MqttSource } from '../adapters/mqtt/mqtt-source.js';
import { partitionSessionsEnd } from '../adapters/mqtt/partition-sessions-end.js';
import { ReadingPipeline } from '../realtime/reading-pipeline.js';
import { LocalRedeliveryWindow } from '../realtime/redelivery-window.js';
import type { IngestionSource } from '../realtime/ingestion-source.js';
import { deviceGroup, type Reading } from '../wire/reading.js';
import { SimulatorService } from '../features/simulator/simulator-service.js';
import { createMqttPublisher } from '../adapters/mqtt/mqtt-publisher.js';
import type { DeliveryRecorder } from '../wire/delivery-recorder.js';
import { instrumentBackplane } from '../adapters/otel/backplane-telemetry.js';
import { HubTelemetry } from '../adapters/otel/hub-telemetry.js';
import { decideDeviceTraces, IngestionTelemetry } from '../adapters/otel/ingestion-telemetry.js';
import { Sources } from '../adapters/otel/source-names.js';
import { Telemetry } from '../adapters/otel/telemetry.js';
import { recordThrottle } from '../adapters/otel/throttle-telemetry.js';
import { DEVICE_SINK } from '../features/history/device-restore.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import { APP_CONFIG, APPLICATION_LIFETIME, CLOCK, LOGGER, OTEL } from './app-service-keys.js';
import { HISTORY } from './history-wiring.js';
import { serviceKey } from '../host/container/service-key.js';
import type { HostedServices } from './hosted-services.js';

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
  /** Present with Redis: one per ingest partition; held while this instance reads that partition of the external MQTT broker. */
  leases: readonly RedisIngestLease[] | undefined;
  /** Present with Redis: each device's last reading shared by the instances. */
  lastValues: SharedLastValues | undefined;
  /** Present with Redis: the management API's way to the instance that has a connection. */
  peers: RedisPeerConnections | undefined;
  /** In start order: backplane, cluster state, ingest lease, broker, hub, checkpoint store, ingestion, simulator. */
  /** Per transport, what its connections tell telemetry; undefined when `TelemetryHub.Hub` is not subscribed. */
  deliveries: { socketio: DeliveryRecorder | undefined; webpubsub: DeliveryRecorder | undefined };
  services: HostedService[];
}

export const TELEMETRY = serviceKey<TelemetryServices>('telemetry');
/** Telemetry's hosted services, in start order; which ones depends on the configuration. */
export const TELEMETRY_HOSTED = serviceKey<readonly HostedService[]>('telemetryHostedServices');

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
  history?: {
    accepted(reading: Reading): void;
    room?(reserved: number): Promise<void> | undefined;
    reader: HistoryReader;
    /** One database for the whole cluster (other instances' readings arrive in it). */
    shared?: boolean;
  },
  otel: Telemetry = Telemetry.off,
): TelemetryServices {
  const registry = new DeviceRegistry({
    maxDevices: config.hub.maxDevices,
    maxDevicesPerTenant: config.hub.maxDevicesPerTenant,
  });
  const backplane = config.redisUrl
    ? new RedisBackplane({
        url: config.redisUrl,
        hubName: config.hub.name,
        cluster: config.redisCluster,
        ingestPartitions: config.cluster.ingestPartitions,
        log: categoryLogger(log, config, 'Hub.Backplane'),
      })
    : undefined;
  const cluster = backplane ? createClusterParts(config, log, clock, registry, backplane) : undefined;
  const backplaneSource = otel.source(Sources.backplane);
  const hubBackplane =
    cluster && backplane && backplaneSource
      ? instrumentBackplane(cluster.hubBackplane, backplaneSource, backplane.errors)
      : cluster?.hubBackplane;
  // Readings go to the backplane like any group send: the instance that ingests a reading is the
  // only one that has it (one lease holder reads the external broker, a device is on one embedded
  // broker, a partition has one owner), and every instance delivers it to its own subscribers.
  const hub = new Hub({
    ...(hubBackplane ? { backplane: hubBackplane } : {}),
    maxGroupsPerConnection: config.hub.maxGroupsPerConnection,
    maxConnectionsPerUser: config.hub.maxConnectionsPerUser,
    maxConnectionsPerTenant: config.hub.maxConnectionsPerTenant,
  });
  // History off: a catch-up still covers a short absence, from the newest readings kept in memory.
  const memory = history
    ? undefined
    : new MemoryHistory({ maxPerDevice: config.hub.catchUpMax, maxDevices: config.hub.maxDevices });
  const reader = history?.reader ?? memory!;
  const accepted = history
    ? (reading: Reading) => history.accepted(reading)
    : (reading: Reading) => memory!.record(reading);
  const catchUp = new CatchUp({
    hub,
    history: reader,
    max: config.hub.catchUpMax,
    log: categoryLogger(log, config, 'Hub'),
    clock,
    // In a cluster another instance may have accepted (and published) readings it has not committed
    // to the shared history yet: a replay waits for the device's last value to be there.
    ...(cluster && history?.shared
      ? { head: (tenantId: string, deviceId: string) => registry.last(tenantId, deviceId)?.seq }
      : {}),
  });
  // Readings other instances published while this one's backplane was down: its members catch up
  // from the shared history once it is back.
  if (cluster && history?.shared)
    backplane?.onResubscribe(
      backplaneGapRecovery(
        hub,
        catchUp,
        (tenantId, deviceId) => registry.last(tenantId, deviceId)?.seq,
        categoryLogger(log, config, 'Hub'),
      ),
    );
  const hubSource = otel.source(Sources.hub);
  const hubTelemetry = hubSource ? new HubTelemetry(hubSource, { hub, clock }) : undefined;
  const toHub = hub.publishReading.bind(hub);
  // The ingester stores what it publishes as each device's last value for the other instances.
  const publish = cluster
    ? (reading: Reading) => {
        toHub(reading);
        cluster.lastValues.write(reading);
      }
    : toHub;
  const pipeline = new ReadingPipeline({
    registry,
    publish: hubTelemetry ? hubTelemetry.publish(publish) : publish,
    logger: categoryLogger(log, config, 'Ingestion'),
    clock,
    maxPerSecond: config.throttle.maxPerSecondPerDevice,
    ...(cluster ? { seq: cluster.seq } : {}),
    ...(config.redelivery.windowMs > 0
      ? {
          redelivery: cluster?.redelivery ?? new LocalRedeliveryWindow({ windowMs: config.redelivery.windowMs, clock }),
        }
      : {}),
    accepted,
    ...(history?.room ? { room: history.room.bind(history) } : {}),
    // A partition's new owner asks what its predecessor accepted before numbering a reading again.
    ...(cluster
      ? {
          recall: (tenantId: string, deviceId: string) => cluster.lastValues.refresh(deviceGroup(tenantId, deviceId)),
          holds: cluster.holds,
        }
      : {}),
  });

  const throttleSource = otel.source(Sources.ingestion);
  if (throttleSource) recordThrottle(throttleSource, () => pipeline.stats());
  const mqttSource = otel.source(Sources.mqtt);
  const mqttTelemetry = mqttSource
    ? new IngestionTelemetry(mqttSource, { spanName: 'process tenants/{tenantId}/devices/{deviceId}/telemetry' })
    : undefined;
  const eventHubsSource = otel.source(Sources.eventHubs);
  const eventHubsTelemetry = eventHubsSource
    ? new IngestionTelemetry(eventHubsSource, { spanName: 'process eventhubs' })
    : undefined;

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
  if (cluster) services.push(...cluster.services);

  if (broker) services.push(broker);
  services.push({
    name: 'hub',
    start: async () => undefined,
    // The server already closed sockets when it stopped; anything joined since goes now.
    stop: async () => hub.closeAll('shutdown'),
  });

  const sources: IngestionSource[] = [];
  // The hub's send span believes a reading's sampled flag: a source without spans of its own still
  // has the hub, not its devices, decide it.
  const traced = (telemetry: IngestionTelemetry | undefined, source: IngestionSource): IngestionSource =>
    telemetry ? telemetry.instrument(source) : hubSource ? decideDeviceTraces(source, hubSource) : source;
  const mqtt = (source: IngestionSource) => sources.push(traced(mqttTelemetry, source));
  if (broker) mqtt(new EmbeddedBrokerSource({ broker, log: categoryLogger(log, config, 'Ingestion.Mqtt') }));
  if (config.mqtt.url !== undefined) {
    const mqttLog = categoryLogger(log, config, 'Ingestion.Mqtt');
    const partitions = cluster?.leases.length ?? 1;
    const source = (partition: number) =>
      new MqttSource({
        url: () => config.mqtt.url!,
        // A session per partition: whoever holds the partition next resumes it, and the broker
        // keeps the partition's readings meanwhile.
        clientId: `${config.mqtt.clientId}${partitionSuffix(partition, partitions, '-')}`,
        qos: config.mqtt.qos,
        sessionExpirySeconds: config.mqtt.sessionExpirySeconds,
        protocolVersion: config.mqtt.protocolVersion,
        // The cluster's session is resumed by the next ingester; the last instance to stop ends it.
        ...(backplane ? { lastOut: async () => (await backplane.otherInstances()) === 0 } : {}),
        ...(partitions > 1 ? { accepts: (topic: string) => partitionOfTopic(topic, partitions) === partition } : {}),
        log: mqttLog,
      });
    // Every instance could read the shared broker; one per partition does, so each reading is
    // numbered and throttled once for the cluster.
    if (cluster)
      cluster.leases.forEach((lease, partition) => mqtt(new LeasedSource(source(partition), lease, mqttLog)));
    else mqtt(source(0));
    // Each source ends its session when the last instance stops; a partition nobody held at that
    // moment (handed on, not yet claimed) has a session no source ends.
    if (backplane && partitions > 1)
      services.push(
        partitionSessionsEnd({
          url: () => config.mqtt.url!,
          clientIds: Array.from(
            { length: partitions },
            (_, i) => `${config.mqtt.clientId}${partitionSuffix(i, partitions, '-')}`,
          ),
          lastOut: async () => (await backplane.otherInstances()) === 0,
          log: mqttLog,
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
    const checkpoints = new CheckpointStoreService(
      config.redisUrl,
      config.redisCluster,
      categoryLogger(log, config, 'Ingestion.EventHubs'),
    );
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
    sources.push(traced(eventHubsTelemetry, eventHubs));
  }
  const ingestion = new IngestionService({
    sources,
    pipeline,
    lifetime,
    log: categoryLogger(log, config, 'Ingestion'),
  });
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
        // Devices of the embedded broker authenticate; an external broker has rules of its own.
        connect: () =>
          createMqttPublisher(config.mqtt.url ?? broker!.url, {
            clientId: `hub-simulator-${process.pid}`,
            ...(config.mqtt.url ? {} : { deviceKey: config.mqtt.deviceKey }),
          }),
        tenant: config.simulator.tenant,
        devices: config.simulator.devices,
        rate: config.simulator.rate,
        log: categoryLogger(log, config, 'Simulator'),
      }),
    );
  }
  const deliveries = {
    socketio: hubTelemetry?.deliveries('socketio'),
    webpubsub: hubTelemetry?.deliveries('webpubsub'),
  };
  return {
    hub,
    backplane,
    registry,
    history: reader,
    catchUp,
    pipeline,
    ingestion,
    broker,
    leases: cluster?.leases,
    lastValues: cluster?.lastValues,
    peers: cluster?.peers,
    deliveries,
    services,
  };
}

/**
 * The telemetry area, made by the container from the configuration, the stored history (catch-up
 * reads it, every accepted reading is offered to its writer) and OpenTelemetry; its hosted
 * services start here in the host's order, and its registry is where history restores devices.
 */
export function registerTelemetry(registrations: ServiceCollection, hosted: HostedServices): void {
  registrations.singleton(
    TELEMETRY,
    [APP_CONFIG, LOGGER, APPLICATION_LIFETIME, CLOCK, HISTORY, OTEL],
    (config, log, lifetime, clock, history, otel) =>
      createTelemetryServices(
        config,
        log,
        lifetime,
        clock,
        history && {
          accepted: (reading) => history.writer.offer(reading),
          room: (reserved) => history.writer.whenRoom(reserved),
          reader: history.reader,
          shared: history.shared,
        },
        otel,
      ),
  );
  registrations.singleton(DEVICE_SINK, [TELEMETRY], (telemetry) => telemetry.registry);
  hosted.addAll(TELEMETRY_HOSTED, [TELEMETRY], (telemetry) => telemetry.services);
}
