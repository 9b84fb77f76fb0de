import type { EventEmitter } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Duplex, pipeline } from 'node:stream';
import { Aedes, type AedesPublishPacket, type Client } from 'aedes';
import type { Logger } from 'pino';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import { LogThrottle } from '../../host/log-throttle.js';
import { createDeviceTokenVerifier } from '../../host/security/device-token.js';
import { ConnectionCaps } from './connection-caps.js';
import { BROKER_REFUSALS, deviceAccessHooks, type BrokerRefusal, type BrokerRefusalReason } from './device-access.js';
import { PacketSizeGuard, PacketTooLargeError } from './packet-size-guard.js';

export interface EmbeddedBrokerOptions {
  port: number;
  /** Listen address (`Ingestion:Mqtt:EmbeddedHost`). */
  host: string;
  /** `Ingestion:Mqtt:DeviceKey`: verifies the device tokens devices connect with. */
  deviceKey: string;
  /** `Ingestion:Mqtt:MaxPacketBytes`. */
  maxPacketBytes: number;
  /** `Ingestion:Mqtt:MaxConnections`, `Ingestion:Mqtt:MaxConnectionsPerIp`. */
  maxConnections: number;
  maxConnectionsPerIp: number;
  log: Logger;
  /** A connection that has not sent CONNECT by then is closed. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** At most one warning per refusal reason per this many ms. Default 10 000. */
  warnIntervalMs?: number;
}

/** Receives each message published to a subscribed topic, in the broker's process. */
export type InProcessHandler = (topic: string, payload: Buffer) => void;

export interface EmbeddedBrokerStats {
  connections: number;
  refused: Record<BrokerRefusalReason, number>;
}

/**
 * An MQTT 3.1.1 broker inside the host (aedes), closed by default: devices authenticate with device
 * tokens and publish only to their own telemetry topic; packets over the size cap close the
 * connection before their body is read; connections are capped in total and per address. The hub
 * reads from it in-process (`subscribe`), so no MQTT client of its own connects and no internal
 * credential exists to leak or guess.
 */
export class EmbeddedBroker implements HostedService {
  readonly name = 'embedded-mqtt-broker';
  readonly #options: EmbeddedBrokerOptions;
  readonly #log: Logger;
  readonly #caps: ConnectionCaps;
  #broker: Aedes | undefined;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  /** The socket's remote address for each connection aedes sees (the size guard sits in between). */
  readonly #addresses = new WeakMap<object, string>();
  readonly #refused = emptyRefusals();
  readonly #refusalWarnings: LogThrottle;
  readonly #refusalListeners = new Set<(refusal: BrokerRefusal) => void>();

  constructor(options: EmbeddedBrokerOptions) {
    this.#options = options;
    this.#log = options.log;
    this.#refusalWarnings = new LogThrottle(options.log, options.warnIntervalMs ?? 10_000);
    this.#caps = new ConnectionCaps(options);
  }

  /** `mqtt://127.0.0.1:PORT` once started (the real port when configured as 0). */
  get url(): string {
    const address = this.#server?.address() as AddressInfo | null;
    if (!address) throw new Error('embedded broker is not started');
    const host = isWildcard(this.#options.host)
      ? '127.0.0.1'
      : address.family === 'IPv6'
        ? `[${address.address}]`
        : address.address;
    return `mqtt://${host}:${address.port}`;
  }

  get running(): boolean {
    return this.#broker !== undefined;
  }

  stats(): EmbeddedBrokerStats {
    return { connections: this.#caps.open, refused: { ...this.#refused } };
  }

  /** Called for every refusal (the ingestion source counts wrong-topic publishes as drops). */
  onRefusal(listener: (refusal: BrokerRefusal) => void): () => void {
    this.#refusalListeners.add(listener);
    return () => this.#refusalListeners.delete(listener);
  }

  /**
   * Delivers messages on `topic` (wildcards allowed) to `handler` inside this process, bypassing
   * the device rules: only the host itself can call this. Resolves with `unsubscribe`.
   */
  async subscribe(topic: string, handler: InProcessHandler): Promise<() => Promise<void>> {
    const broker = this.#broker;
    if (!broker) throw new Error('embedded broker is not started');
    const deliver = (packet: AedesPublishPacket, done: () => void) => {
      try {
        handler(packet.topic, packet.payload as Buffer);
      } finally {
        done();
      }
    };
    await new Promise<void>((resolve) => broker.subscribe(topic, deliver, resolve));
    return () =>
      new Promise<void>((resolve) => (broker.closed ? resolve() : broker.unsubscribe(topic, deliver, resolve)));
  }

  async start(): Promise<void> {
    const { deviceKey, maxPacketBytes } = this.#options;
    const hooks = deviceAccessHooks({
      verify: createDeviceTokenVerifier(deviceKey),
      clients: () => (broker as unknown as { clients: Record<string, Client> }).clients,
      refuse: (refusal, client) =>
        this.#refuse({ ...refusal, address: client ? this.#addresses.get(client.conn) : undefined }),
    });
    const broker = await Aedes.createBroker({ ...hooks, connectTimeout: this.#options.connectTimeoutMs ?? 10_000 });
    // aedes emits 'error' for persistence failures; unheard, that would end the process.
    (broker as EventEmitter).on('error', (err: Error) => this.#log.error({ err }, 'embedded mqtt broker error'));
    broker.on('clientError', (client, err) =>
      this.#log.debug({ clientId: client?.id, err: err.message }, 'mqtt client error'),
    );
    broker.on('connectionError', (_client, err) => this.#log.debug({ err: err.message }, 'mqtt connection error'));

    const server = createServer((socket) => this.#accept(broker, socket, maxPacketBytes));
    // For the server's whole life: an accept failure (EMFILE when out of descriptors) is logged, never thrown.
    server.on('error', (err) => this.#log.error({ err }, 'embedded mqtt broker socket error'));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#options.port, this.#options.host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch(async (err: unknown) => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      throw err;
    });
    this.#broker = broker;
    this.#server = server;
    this.#log.info({ url: this.url, host: this.#options.host }, 'embedded mqtt broker listening');
  }

  async stop(): Promise<void> {
    const server = this.#server;
    const broker = this.#broker;
    if (!server || !broker) return;
    this.#broker = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
    });
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    this.#server = undefined;
    this.#log.info({ refused: this.#refused }, 'embedded mqtt broker stopped');
  }

  #accept(broker: Aedes, socket: Socket, maxPacketBytes: number): void {
    // First and for the socket's whole life: a reset or timeout is a closed connection, not a crash.
    socket.on('error', (err) => this.#log.debug({ err: err.message }, 'mqtt socket error'));
    const address = socket.remoteAddress ?? 'unknown';
    const capped = this.#caps.admit(address);
    if (capped) {
      this.#refuse({ reason: capped, address });
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once('close', () => {
      this.#caps.release(address);
      this.#sockets.delete(socket);
    });
    socket.setNoDelay(true);
    const guard = new PacketSizeGuard(maxPacketBytes);
    pipeline(socket, guard, (err) => {
      if (err instanceof PacketTooLargeError) this.#refuse({ reason: 'packet_too_large', address });
      if (err) socket.destroy();
    });
    const conn = Duplex.from({ readable: guard, writable: socket });
    // aedes swaps its own listeners on and off as a client closes; this one stays for the whole life.
    conn.on('error', () => undefined);
    this.#addresses.set(conn, address);
    broker.handle(conn);
  }

  #refuse(refusal: BrokerRefusal): void {
    this.#refused[refusal.reason]++;
    for (const listener of this.#refusalListeners) listener(refusal);
    this.#refusalWarnings.warn({ ...refusal }, 'mqtt refused', refusal.reason);
  }
}

function emptyRefusals(): Record<BrokerRefusalReason, number> {
  const counts = {} as Record<BrokerRefusalReason, number>;
  for (const reason of BROKER_REFUSALS) counts[reason] = 0;
  return counts;
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}
