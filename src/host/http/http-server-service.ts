import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { HostedService } from '../lifecycle/hosted-service.js';

/** Closes long-lived connections (WebSockets, socket.io) telling clients to reconnect elsewhere. */
export type LongLivedCloser = () => Promise<void> | void;

/**
 * The HTTP server as a hosted service, registered last so it starts last and stops first.
 * Stopping refuses new connections, answers 503 on kept-alive ones, drains in-flight requests and
 * closes long-lived connections with a "reconnect elsewhere" code.
 */
export class HttpServerService implements HostedService {
  readonly name = 'http-server';
  readonly #fastify: FastifyInstance;
  readonly #log: Logger;
  readonly #port: number;
  readonly #host: string;
  readonly #closers: LongLivedCloser[] = [];
  #url: string | undefined;

  constructor(options: { fastify: FastifyInstance; log: Logger; port: number; host: string }) {
    this.#fastify = options.fastify;
    this.#log = options.log;
    this.#port = options.port;
    this.#host = options.host;
    this.#fastify.addHook('preClose', async () => {
      await Promise.allSettled(this.#closers.map((close) => Promise.resolve().then(close)));
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

  async start(): Promise<void> {
    await this.#fastify.listen({ port: this.#port, host: this.#host });
    const address = this.#fastify.server.address() as AddressInfo;
    const host = this.#host === '0.0.0.0' || this.#host === '::' ? 'localhost' : this.#host;
    this.#url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
    this.#log.info({ url: this.#url }, 'listening');
  }

  async stop(signal: AbortSignal): Promise<void> {
    const closing = this.#fastify.close();
    // Past the deadline, connections that still hang on are cut so the process can exit.
    const onAbort = () => this.#fastify.server.closeAllConnections();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await closing;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}
