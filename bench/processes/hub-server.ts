import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeApplication } from '../../src/compose/compose-application.js';
import { loadConfig } from '../../src/compose/load-app-config.js';
import { loadMigrations, migrate } from '../../src/features/storage/migrations.js';
import { openConnector } from '../../src/compose/open-connector.js';
import { createRootLogger } from '../../src/host/logging.js';
import { Results } from '../../src/host/pipeline/results.js';
import { BENCH } from '../harness/bench-config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';
import { BENCH_JSON } from './json-body.js';
import { benchDataDirectory } from '../harness/database-template.js';
import { Histogram } from '../harness/histogram.js';

interface HubArgs {
  /** External broker (Mosquitto); unset → the embedded broker on an ephemeral port. */
  mqttUrl?: string;
  throttlePerSecond: number;
  /** Unique per run: a shared broker must not see two hubs with one client id. */
  clientId: string;
  /** More `--Section:Key=value` overrides, e.g. a log level. */
  extraArgs?: string[];
  /** Devices of tenant `bench` remembered before the run (for GET /v1/devices). */
  seedDevices?: number;
  /** Store readings (History:Enabled); off unless a scenario measures history. */
  history?: boolean;
  /** Ingestion:Mqtt:Qos; default 0 (clean session: nothing lingers on a shared broker). At 1 the
   *  scenario removes the hub's persistent session afterwards. */
  qos?: 0 | 1;
}

/**
 * The real hub, composed as main.ts does (Production configuration, JSON logs to stdout, which
 * the orchestrator discards), plus `GET /bench/json` for the HTTP benchmark. The Web PubSub
 * endpoint is the host's own (`GET /client/hubs/{hub}`, src/compose/serverless-wiring.ts).
 */
const args = processArgs<HubArgs>();
const contentRoot = mkdtempSync(join(tmpdir(), 'hub-bench-'));
const config = loadConfig({
  args: [
    '--Http:Port=0',
    '--Http:Host=127.0.0.1',
    '--Ingestion:Mqtt:EmbeddedPort=0',
    // QoS 0 with a clean session: nothing lingers on a shared broker after the run.
    `--Ingestion:Mqtt:Qos=${args.qos ?? 0}`,
    `--Ingestion:Mqtt:ClientId=${args.clientId}`,
    `--Throttle:MaxPerSecondPerDevice=${args.throttlePerSecond}`,
    '--Simulator:Devices=0',
    // One embedded database per process (two instances of a scale-out run side by side).
    `--Database:DataDirectory=${join(contentRoot, 'data')}`,
    `--Hub:Name=${BENCH.hubName}`,
    `--Hub:AccessKey=${BENCH.accessKey}`,
    `--Auth:Jwt:Secret=${BENCH.jwt.secret}`,
    `--Auth:Jwt:Issuer=${BENCH.jwt.issuer}`,
    `--Auth:Jwt:Audience=${BENCH.jwt.audience}`,
    // Thousands of subscribers of one tenant, mostly one user, connect at once from one address:
    // the per-client caps would refuse them (the benchmark measures fan-out, not the caps).
    '--Http:WebSocketUpgradesPerIpPerSecond=100000',
    '--Http:WebSocketUpgradeBurstPerIp=100000',
    '--Http:MaxPendingUpgrades=1000000',
    '--Hub:MaxConnectionsPerUser=1000000',
    '--Hub:MaxConnectionsPerTenant=10000000',
    ...(args.mqttUrl
      ? [`--ConnectionStrings:mqtt=${args.mqttUrl}`]
      : [
          '--Ingestion:Mqtt:Embedded=true',
          `--Ingestion:Mqtt:DeviceKey=${BENCH.deviceKey}`,
          `--Ingestion:Mqtt:MaxConnections=${BENCH.maxConnectionsPerIp}`,
          `--Ingestion:Mqtt:MaxConnectionsPerIp=${BENCH.maxConnectionsPerIp}`,
        ]),
    `--Database:DataDirectory=${await benchDataDirectory()}`,
    `--History:Enabled=${args.history === true}`,
    ...(args.extraArgs ?? []),
  ],
  env: { HUB_ENVIRONMENT: 'Production' },
  contentRoot,
});

// Production does not migrate at start (`npm run migrate` does): the bench's fresh embedded database is migrated here.
const connector = await openConnector(config.database, { warn: () => undefined });
await migrate(connector, loadMigrations(config.database.migrationsDirectory));
await connector.close();

const app = composeApplication(config, createRootLogger(config), (a) => {
  a.web.routes.get('/bench/json', () => Results.json(BENCH_JSON), {
    metadata: { allowAnonymous: true, rateLimit: false },
  });
  // The same JSON behind the hub's own user authentication (a JWT bearer, as every /v1 route), the
  // default CORS policy and the rate-limit stage: the work the Fastify-with-plugins anchor does.
  a.web.routes.get('/bench/secure-json', () => Results.json(BENCH_JSON));
});
if (!app.web.endpoints.some((e) => e.template.text === '/client/hubs/{hub}'))
  throw new Error('the host maps no /client/hubs/{hub}');
await app.host.start();
for (let i = 0; i < (args.seedDevices ?? 0); i++) {
  const now = Date.now();
  app.telemetry.registry.record({
    tenantId: BENCH.tenant,
    deviceId: `dev-${String(i).padStart(4, '0')}`,
    seq: 1,
    ts: now,
    receivedAt: now,
    data: { temperature: 21.5, humidity: 40.1 },
  });
}

// Ready for the benchmark only once ingestion holds its broker subscription (MQTT: SUBACK received).
const deadline = Date.now() + 15_000;
while (!app.telemetry.ingestion.connected) {
  if (Date.now() > deadline) throw new Error('ingestion did not connect to its broker');
  await new Promise((r) => setTimeout(r, 20));
}

// Writer lag: from a reading's acceptance (receivedAt) to its batch's commit.
const lag = new Histogram();
app.history?.writer.observe((batch) => {
  const now = Date.now();
  for (const r of batch) lag.record(now - r.receivedAt);
});

serveParent(
  {
    stats: () => ({
      ...app.telemetry.pipeline.stats(),
      at: performance.now(),
      connections: app.telemetry.hub.connectionCount,
      groups: app.telemetry.hub.groupCount,
      history: app.history?.writer.stats(),
      // Ingest partitions this instance holds (a partitioned cluster).
      partitions: app.telemetry.leases?.filter((lease) => lease.held).length,
    }),
    /** The writer lag since the last call (ms), then starts over. */
    lag: () => {
      const summary = lag.summary();
      lag.reset();
      return summary;
    },
  },
  { url: `http://127.0.0.1:${new URL(app.server.url!).port}`, brokerUrl: app.telemetry.broker?.url ?? args.mqttUrl },
);
