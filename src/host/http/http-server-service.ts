import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import type { HostedService } from '../lifecycle/hosted-service.js';

/** How long clients get to close long-lived connections after being told to reconnect elsewhere. */
const LONG_LIVED_GRACE_MS = 2000;

/** Closes long-lived connections (WebSockets, socket.io) telling clients to reconnect elsewhere. */
export type LongLivedCloser = () => Promise<void> | void;

/**
 * The HTTP server as a hosted service, registered last so it starts last and stops first.
 * Stopping closes long-lived connections (the `onClosing` closers: "reconnect elsewhere"), refuses new
 * connections, and drains in-flight requests; each response from then on closes its connection.
 */
export class HttpServerService implements HostedService {
  readonly name = 'http-server';
  readonly #fastify: FastifyInstance;
  readonly #log: Logger;
  readonly #port: number;
  readonly #host: string;
  readonly #closers: LongLivedCloser[] = [];
  /** Every upgraded socket (WebSocket, socket.io): the server waits for them when it closes. */
  readonly #upgraded = new Set<Duplex>();
  #url: string | undefined;

  constructor(options: { fastify: FastifyInstance; log: Logger; port: number; host: string }) {
    this.#fastify = options.fastify;
    this.#log = options.log;
    this.#port = options.port;
    this.#host = options.host;
    this.#fastify.addHook('preClose', async () => {
      await Promise.allSettled(this.#closers.map((close) => Promise.resolve().then(close)));
    });
    this.#fastify.server.on('upgrade', (_req, socket: Duplex) => {
      this.#upgraded.add(socket);
      socket.once('close', () => this.#upgraded.delete(socket));
    });
  }

  /** Registered by the transports that own long-lived connections. */
  onClosing(closer: LongLivedCloser): void {
    this.#closers.push(closer);
  }

  /** The bound URL (with the real port when configured as 0); undefined before start. */
  get url(): string | undefined {
    return this.#url;
  }

  /** Runs one request through the server without a socket (tests); needs no start. */
  inject(options: InjectOptions | string): Promise<LightMyRequestResponse> {
    return this.#fastify.inject(options);
  }

  async start(): Promise<void> {
    await this.#fastify.listen({ port: this.#port, host: this.#host });
    const address = this.#fastify.server.address() as AddressInfo;
    const host = this.#host === '0.0.0.0' || this.#host === '::' ? 'localhost' : this.#host;
    this.#url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
    this.#log.info({ url: this.#url }, 'listening');
  }

  async stop(signal: AbortSignal): Promise<void> {
    const closing = this.#fastify.close();
    // Clients were told to reconnect elsewhere; one that has not finished the close handshake by
    // now never reads (or is gone) and must not hold the shutdown up to the timeout.
    const grace = setTimeout(() => {
      for (const socket of this.#upgraded) socket.destroy();
    }, LONG_LIVED_GRACE_MS);
    // Past the deadline, connections that still hang on are cut so the process can exit.
    const onAbort = () => this.#fastify.server.closeAllConnections();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await closing;
    } finally {
      clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
