import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { boundedClusterOptions, boundedRedisOptions } from './bounded-redis-options.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import { LogThrottle } from '../../host/log-throttle.js';
import { SpanKind } from '@opentelemetry/api';
import { endHopSpan, startHopSpan, type SpanStarter } from '../../host/hop-trace.js';

let commandSpans: SpanStarter | undefined;

/**
 * Client spans for Redis commands sent inside a sampled trace, from every client of this process
 * (the composition root sets it once, from `TelemetryHub.Redis`). Commands outside a trace (the
 * backplane, the throttle's counters) record nothing.
 */
export function traceRedisCommands(start: SpanStarter | undefined): void {
  commandSpans = start;
}

/** A client of one Redis server, or of a Redis Cluster (`Redis:Cluster`): the commands the hub sends are the same. */
export type RedisClient = Redis | Cluster;

/**
 * The one way this project makes a Redis client: bounded (a Redis that is down or silent fails
 * commands fast instead of queueing them), connecting only when asked, with `extra` options on top.
 */
export function redisClient(url: string, extra: RedisOptions = {}): Redis {
  return traced(new Redis(url, { ...boundedRedisOptions(), ...extra }), url);
}

/**
 * The same for a Redis Cluster, `url` naming any of its nodes (the client discovers the others
 * and follows the slots as they move, after a failover too). The URL's credentials and TLS apply
 * to every node. `connect()` resolves once the slots are known and every master is connected;
 * commands sent before fail.
 */
export function redisClusterClient(url: string, extra: ClusterOptions = {}): Cluster {
  const { hostname, port } = new URL(url);
  const seed = { host: hostname || 'localhost', port: Number(port || 6379) };
  const client = traced(new Cluster([seed], { ...boundedClusterOptions(url), ...extra }), url);
  // The cluster client connects to a node at its first command, and without an offline queue
  // fails the commands sent to it meanwhile, to retry them on a random node after a delay: out
  // of order, which one publisher's messages must not be. So `connect()` also connects every
  // master (a master that takes over later is connected at its first command, during the
  // failover, while sends may be lost anyway).
  const connect = client.connect.bind(client);
  client.connect = async () => {
    await connect();
    await Promise.all(client.nodes('master').map(nodeSettled));
  };
  return client;
}

/** Resolves once a node's connection is ready, or gave up (a node the client no longer needs). */
function nodeSettled(node: Redis): Promise<void> {
  if (node.status === 'ready' || node.status === 'end') return Promise.resolve();
  if (node.status === 'wait') node.connect().catch(() => undefined);
  return new Promise((resolve) => {
    node.once('ready', resolve);
    node.once('end', resolve);
  });
}

/** `redisClient` or `redisClusterClient`, as configured. */
export function anyRedisClient(url: string, cluster: boolean, autoPipelining = false): RedisClient {
  const extra = autoPipelining ? { enableAutoPipelining: true } : {};
  return cluster ? redisClusterClient(url, extra) : redisClient(url, extra);
}

function traced<C extends RedisClient>(client: C, url: string): C {
  const { hostname, port } = new URL(url);
  const server = {
    'db.system.name': 'redis',
    'server.address': hostname || 'localhost',
    'server.port': Number(port || 6379),
  };
  const send = client.sendCommand.bind(client) as (...args: Parameters<C['sendCommand']>) => unknown;
  // Called in the caller's async context: the span's parent is the caller's trace.
  client.sendCommand = ((...args: Parameters<C['sendCommand']>) => {
    const [command] = args;
    const span =
      commandSpans === undefined
        ? undefined
        : startHopSpan(commandSpans, command.name.toUpperCase(), {
            kind: SpanKind.CLIENT,
            attributes: { ...server, 'db.operation.name': command.name.toUpperCase() },
          });
    if (span !== undefined)
      command.promise.then(
        () => span.end(),
        (err: unknown) => endHopSpan(span, err),
      );
    return send(...args);
  }) as C['sendCommand'];
  return client;
}

export interface RedisConnectionOptions {
  url: string;
  /** The hosted service's name, e.g. `cluster-redis`. */
  name: string;
  log: Logger;
  /**
   * Pipelines the commands of one event-loop turn: the `seq` of thousands of readings a second
   * costs a few round trips, not one each.
   */
  autoPipelining?: boolean;
  /** `url` names a node of a Redis Cluster (`Redis:Cluster`). */
  cluster?: boolean;
}

/**
 * A Redis connection as a hosted service: one client, errors logged at most once per interval,
 * start never waiting for Redis (ioredis keeps reconnecting), stop quitting cleanly when it can.
 */
export class RedisConnection implements HostedService {
  readonly name: string;
  readonly client: RedisClient;
  readonly #log: Logger;
  #closing = false;

  constructor(options: RedisConnectionOptions) {
    this.name = options.name;
    this.client = anyRedisClient(options.url, options.cluster ?? false, options.autoPipelining);
    this.#log = options.log;
    const faults = new LogThrottle(options.log);
    this.client.on('error', (err: Error) => faults.warn({ err: { message: err.message } }, 'redis error'));
  }

  async start(): Promise<void> {
    try {
      await this.client.connect();
    } catch (err) {
      this.#log.warn(
        { err: { message: (err as Error).message }, service: this.name },
        'redis not reachable at start; waiting for it',
      );
    }
  }

  async stop(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // a silent Redis never answers QUIT either
      }
    }
    this.client.disconnect();
  }
}
