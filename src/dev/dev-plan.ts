import { randomBytes } from 'node:crypto';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ResourceSpec } from './resource.js';

/** What the developer asked for (`npm run dev -- --port 8080 …`). */
export interface DevOptions {
  /** The project (where `dist/` and `package.json` are). */
  root: string;
  /** The gateway's port: the one external endpoint. */
  port: number;
  dashboardPort: number;
  instances: number;
  devices: number;
  rate: number;
  /** Where the local PostgreSQL keeps its files (and the embedded databases, per instance). */
  dataDir: string;
}

export type DevBinary = 'redis-server' | 'mosquitto' | 'postgres' | 'initdb' | 'rabbitmq-server' | 'epmd';

/** What this machine has, found once at start. */
export interface DevEnvironment {
  /** Absolute paths of the local binaries found (redis-server, mosquitto, postgres, initdb, rabbitmq-server, epmd). */
  binaries: Partial<Record<DevBinary, string>>;
  /** package.json scripts: `migrate` and `worker` run when the project has them. */
  scripts: Readonly<Record<string, string>>;
  /** Is the PostgreSQL data directory already initialised? */
  postgresInitialised: boolean;
  /** Running as root: PostgreSQL then runs as this user. */
  postgresUser: { uid: number; gid: number } | undefined;
  /** The developer's RabbitMQ (`ConnectionStrings__rabbitmq`); unset → a private node when installed. */
  rabbitMqUrl: string | undefined;
  /** The orchestrator's own OTLP receiver, where every hub, the worker and the gateway export. */
  otlpEndpoint?: string | undefined;
  /** Free ports, one per call. */
  freePort: () => Promise<number>;
}

/** Finds `name` on PATH, and PostgreSQL's binaries in Debian's versioned directory too. */
export function findBinary(name: string, path = process.env.PATH ?? ''): string | undefined {
  const dirs = path.split(delimiter).filter(Boolean);
  // Debian's /usr/sbin/rabbitmq-server switches to the rabbitmq account when run as root; the
  // script it wraps runs the node as whoever starts it, with the directories given to it.
  if (name === 'rabbitmq-server') dirs.unshift('/usr/lib/rabbitmq/bin');
  if (name === 'postgres' || name === 'initdb') {
    try {
      const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
      dirs.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
    } catch {
      /* not installed there */
    }
  }
  dirs.push('/usr/sbin', '/usr/local/sbin');
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** `node <file>` of a package.json script, so it runs on the built files without rebuilding. */
export function nodeEntryOf(script: string | undefined): string[] | undefined {
  const m = script === undefined ? null : /(?:^|&&\s*)node\s+(\S+\.js)((?:\s+[^&|;]+)?)\s*$/.exec(script);
  return m ? [m[1]!, ...m[2]!.trim().split(/\s+/).filter(Boolean)] : undefined;
}

/**
 * The resources of a development system and their order: the cache, the MQTT broker, the database
 * and the message broker (local binaries on private ports when installed, else the hub's embedded
 * defaults), the migrations once against that database, the hub instances after them, the worker,
 * the simulator and the gateway, which alone listens on the port the developer opens.
 */
export async function planResources(o: DevOptions, env: DevEnvironment): Promise<ResourceSpec[]> {
  const node = process.execPath;
  const specs: ResourceSpec[] = [];
  const infra: string[] = [];
  const b = env.binaries;

  let redisUrl: string | undefined;
  if (b['redis-server']) {
    const port = await env.freePort();
    redisUrl = `redis://127.0.0.1:${port}`;
    specs.push({
      name: 'redis',
      type: 'cache',
      command: b['redis-server'],
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      env: {},
      endpoints: [{ name: 'redis', url: redisUrl }],
      after: [],
      readiness: { kind: 'port', port },
    });
    infra.push('redis');
  }

  let mqttUrl: string | undefined;
  if (b.mosquitto) {
    const port = await env.freePort();
    mqttUrl = `mqtt://127.0.0.1:${port}`;
    // No configuration file: loopback only, anonymous clients (devices' tokens are ignored).
    specs.push({
      name: 'broker',
      type: 'mqtt broker',
      command: b.mosquitto,
      args: ['-p', String(port)],
      env: {},
      endpoints: [{ name: 'mqtt', url: mqttUrl }],
      after: [],
      readiness: { kind: 'port', port },
    });
    infra.push('broker');
  }

  let postgresUrl: string | undefined;
  if (b.postgres && b.initdb) {
    const port = await env.freePort();
    const dir = join(o.dataDir, 'postgres');
    const asUser = env.postgresUser ? { uid: env.postgresUser.uid, gid: env.postgresUser.gid } : {};
    const after: string[] = [];
    if (!env.postgresInitialised) {
      specs.push({
        name: 'postgres-init',
        type: 'database setup',
        command: b.initdb,
        args: ['-D', dir, '-U', 'postgres', '-A', 'trust', '--no-sync'],
        env: {},
        ...asUser,
        endpoints: [],
        after: [],
        readiness: { kind: 'exit' },
      });
      after.push('postgres-init');
    }
    postgresUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    specs.push({
      name: 'postgres',
      type: 'database',
      command: b.postgres,
      args: ['-D', dir, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off'],
      env: {},
      ...asUser,
      endpoints: [{ name: 'postgres', url: postgresUrl }],
      after,
      readiness: { kind: 'log', pattern: /ready to accept connections/ },
    });
    infra.push('postgres');
  }

  // The message broker: the developer's RabbitMQ, else a private node of the local rabbitmq-server
  // (its own port mapper, ports, files and node name: it shares nothing with a RabbitMQ already
  // running). A queue is shared by processes only with a shared database, so only with PostgreSQL;
  // otherwise each hub keeps the in-process queue and runs its own worker.
  let rabbitMqUrl = postgresUrl ? env.rabbitMqUrl : undefined;
  if (postgresUrl && rabbitMqUrl === undefined && b['rabbitmq-server'] && b.epmd) {
    const [epmdPort, amqpPort, distPort] = [await env.freePort(), await env.freePort(), await env.freePort()];
    const dir = join(o.dataDir, 'rabbitmq');
    specs.push({
      name: 'epmd',
      type: 'erlang port mapper',
      command: b.epmd,
      args: ['-port', String(epmdPort), '-address', '127.0.0.1'],
      env: {},
      endpoints: [],
      after: [],
      readiness: { kind: 'port', port: epmdPort },
    });
    rabbitMqUrl = `amqp://guest:guest@127.0.0.1:${amqpPort}`;
    specs.push({
      name: 'rabbitmq',
      type: 'message broker',
      command: b['rabbitmq-server'],
      args: [],
      // Erlang writes its crash dumps into the working directory: the node's own, not the project.
      cwd: dir,
      env: {
        ERL_EPMD_PORT: String(epmdPort),
        RABBITMQ_NODENAME: `dev-${amqpPort}@localhost`,
        RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
        RABBITMQ_NODE_PORT: String(amqpPort),
        RABBITMQ_DIST_PORT: String(distPort),
        RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
        RABBITMQ_LOG_BASE: join(dir, 'log'),
        RABBITMQ_LOGS: '-',
        RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
        RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
        RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      },
      endpoints: [{ name: 'amqp', url: rabbitMqUrl.replace('guest:guest@', '') }],
      after: ['epmd'],
      readiness: { kind: 'port', port: amqpPort },
      // An Erlang node boots in tens of seconds on a busy machine.
      readyTimeoutMs: 180_000,
    });
    infra.push('rabbitmq');
  }
  const worker = postgresUrl && rabbitMqUrl ? nodeEntryOf(env.scripts['worker']) : undefined;

  const dbEnv: Record<string, string> = postgresUrl ? { ConnectionStrings__postgres: postgresUrl } : {};
  const common: Record<string, string> = {
    HUB_ENVIRONMENT: 'Development',
    Hub__AccessKey: randomBytes(32).toString('base64url'),
    ...dbEnv,
    ...(redisUrl ? { ConnectionStrings__redis: redisUrl } : {}),
  };
  // Spans of every process to the page's receiver, half a second after they end.
  const traced: Record<string, string> = env.otlpEndpoint
    ? { Telemetry__Otlp__Endpoint: env.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '500' }
    : {};
  // With the standalone worker, the hubs publish to RabbitMQ and leave consuming to it.
  const queueEnv: Record<string, string> = worker
    ? { ConnectionStrings__rabbitmq: rabbitMqUrl!, Worker__Enabled: 'false' }
    : {};

  // Migrations run once against the shared server. Without one, each hub has its own embedded
  // database, which the hub migrates itself at start in Development.
  const migrate = postgresUrl ? nodeEntryOf(env.scripts['migrate']) : undefined;
  const beforeHubs = [...infra];
  if (migrate) {
    specs.push({
      name: 'migrations',
      type: 'migrations',
      command: node,
      args: migrate,
      cwd: o.root,
      env: common,
      endpoints: [],
      after: ['postgres'],
      readiness: { kind: 'exit' },
    });
    beforeHubs.push('migrations');
  }

  // Without a shared broker, readings reach only the instance whose embedded broker the simulator
  // publishes to: one instance then.
  const instances = mqttUrl ? o.instances : 1;
  const hubs: string[] = [];
  const hubUrls: string[] = [];
  let embeddedMqtt: string | undefined;
  for (let i = 1; i <= instances; i++) {
    const port = await env.freePort();
    const url = `http://127.0.0.1:${port}`;
    const name = `hub-${i}`;
    const brokerEnv: Record<string, string> = mqttUrl
      ? { ConnectionStrings__mqtt: mqttUrl }
      : { Ingestion__Mqtt__EmbeddedPort: String(await env.freePort()) };
    if (!mqttUrl) embeddedMqtt = `mqtt://127.0.0.1:${brokerEnv['Ingestion__Mqtt__EmbeddedPort']}`;
    specs.push({
      name,
      type: 'hub',
      command: node,
      args: ['dist/src/main.js'],
      cwd: o.root,
      env: {
        ...common,
        ...traced,
        ...queueEnv,
        ...brokerEnv,
        Http__Port: String(port),
        Http__Host: '127.0.0.1',
        Http__TrustedProxies: '127.0.0.1',
        Hub__InstanceId: name,
        Simulator__Devices: '0',
        Database__DataDirectory: join(o.dataDir, 'data', name),
      },
      endpoints: [
        { name: 'http', url },
        ...(embeddedMqtt && !mqttUrl ? [{ name: 'mqtt (embedded)', url: embeddedMqtt }] : []),
      ],
      after: beforeHubs,
      readiness: { kind: 'http', url: `${url}/health/ready` },
    });
    hubs.push(name);
    hubUrls.push(url);
  }

  // The worker alone needs shared services: this PostgreSQL and RabbitMQ; without them each hub
  // runs its worker inside itself, on the in-process queue.
  if (worker) {
    specs.push({
      name: 'worker',
      type: 'worker',
      command: node,
      args: worker,
      cwd: o.root,
      env: { ...common, ...traced, ConnectionStrings__rabbitmq: rabbitMqUrl!, Hub__InstanceId: 'worker' },
      endpoints: [],
      after: beforeHubs,
      readiness: { kind: 'log', pattern: /worker ready/ },
    });
  }

  specs.push({
    name: 'simulator',
    type: 'simulator',
    command: node,
    args: [
      'dist/src/simulator/cli.js',
      '--url',
      mqttUrl ?? embeddedMqtt!,
      '--tenant',
      'demo',
      '--devices',
      String(o.devices),
      '--rate',
      String(o.rate),
    ],
    cwd: o.root,
    env: {},
    endpoints: [],
    after: hubs,
    readiness: { kind: 'log', pattern: /^simulating / },
  });

  const gatewayPort = o.port === 0 ? await env.freePort() : o.port;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  specs.push({
    name: 'gateway',
    type: 'gateway',
    command: node,
    args: ['dist/src/gateway.js'],
    cwd: o.root,
    env: {
      HUB_ENVIRONMENT: 'Development',
      Hub__AccessKey: common['Hub__AccessKey']!,
      Http__Port: String(gatewayPort),
      Http__Host: '127.0.0.1',
      Gateway__Stamps: `pool=${hubUrls.join(' ')}`,
      Gateway__Tenants: 'demo=pool',
      // The dashboard's files and the development sign-in carry no token yet.
      Gateway__DefaultStamp: 'pool',
      Gateway__HealthIntervalSeconds: '1',
      ...traced,
    },
    endpoints: [{ name: 'dashboard', url: `${gatewayUrl}/`, external: true }],
    after: hubs,
    readiness: { kind: 'http', url: `${gatewayUrl}/health/ready` },
  });
  return specs;
}

/** What the page says about the queue: where messages go and who consumes them. */
export function describeQueue(specs: readonly ResourceSpec[]): string {
  const worker = specs.find((s) => s.name === 'worker');
  const rabbitmq = specs.find((s) => s.name === 'rabbitmq');
  if (rabbitmq)
    return `RabbitMQ: a private node of this machine's rabbitmq-server (${rabbitmq.endpoints[0]!.url}); the hubs publish, the standalone worker consumes.`;
  if (worker)
    return `RabbitMQ: ${redactUrl(worker.env['ConnectionStrings__rabbitmq']!)} (ConnectionStrings__rabbitmq); the hubs publish, the standalone worker consumes.`;
  return "In-process queue: each hub runs its own worker (RabbitMQ needs this machine's PostgreSQL and rabbitmq-server, or ConnectionStrings__rabbitmq).";
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = u.password ? '***' : '';
    return u.toString();
  } catch {
    return 'set';
  }
}
