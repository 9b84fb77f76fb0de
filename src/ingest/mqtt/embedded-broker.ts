import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import type { Logger } from 'pino';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';

/**
 * An MQTT 3.1.1 broker inside the host (aedes), used when no broker is configured so `npm start`
 * needs nothing external. Devices and the simulator publish to it like to any broker.
 */
export class EmbeddedBroker implements HostedService {
  readonly name = 'embedded-mqtt-broker';
  readonly #port: number;
  readonly #host: string;
  readonly #log: Logger;
  #broker: Aedes | undefined;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();

  constructor(options: { port: number; host?: string; log: Logger }) {
    this.#port = options.port;
    this.#host = options.host ?? '0.0.0.0';
    this.#log = options.log;
  }

  /** `mqtt://127.0.0.1:PORT` once started (the real port when configured as 0). */
  get url(): string {
    const address = this.#server?.address() as AddressInfo | null;
    if (!address) throw new Error('embedded broker is not started');
    return `mqtt://127.0.0.1:${address.port}`;
  }

  async start(): Promise<void> {
    const broker = await Aedes.createBroker();
    broker.on('clientError', (client, err) => this.#log.debug({ clientId: client?.id, err: err.message }, 'mqtt client error'));
    broker.on('connectionError', (_client, err) => this.#log.debug({ err: err.message }, 'mqtt connection error'));
    const server = createServer((socket) => {
      socket.setNoDelay(true);
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      broker.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, this.#host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#broker = broker;
    this.#server = server;
    this.#log.info({ url: this.url }, 'embedded mqtt broker listening');
  }

  async stop(): Promise<void> {
    const server = this.#server;
    const broker = this.#broker;
    if (!server || !broker) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
    });
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    this.#server = undefined;
    this.#broker = undefined;
  }
}
