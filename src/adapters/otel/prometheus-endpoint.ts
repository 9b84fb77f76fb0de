import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError } from '../../host/config/load-config.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';

export interface PrometheusEndpointOptions {
  host: string;
  port: number;
  /** Answers one scrape: the exporter's `getMetricsRequestHandler`. */
  serve(request: IncomingMessage, response: ServerResponse): void;
  log: Pick<Logger, 'info'>;
}

/**
 * `GET /metrics` on a listener of its own (`Telemetry:Prometheus:*`), apart from the public HTTP
 * server: no authentication, no middleware, and a scrape never competes with clients for the
 * public port. The exporter's own server is not used: it cannot bind port 0 (it reads 0 as its
 * default 9464) and would start before the host does.
 */
export class PrometheusEndpoint implements HostedService {
  readonly name = 'prometheus-endpoint';
  readonly #o: PrometheusEndpointOptions;
  #server: Server | undefined;
  #url: string | undefined;

  constructor(options: PrometheusEndpointOptions) {
    this.#o = options;
  }

  /** `http://host:port/metrics` with the bound port; undefined before start. */
  get url(): string | undefined {
    return this.#url;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => this.#handle(req, res));
    // Scrapes are short; a scraper's keep-alive connection must not hold the shutdown up.
    server.keepAliveTimeout = 5_000;
    const { host, port } = this.#o;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, port)));
      server.listen(port, host, () => resolve());
    });
    this.#server = server;
    const bound = (server.address() as AddressInfo).port;
    this.#url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`;
    this.#o.log.info({ url: this.#url }, 'prometheus metrics endpoint open');
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    this.#o.serve(req, res);
  }
}

/** A bind failure is a configuration problem: start-up stops with exit 78 naming the key. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  switch (err.code) {
    case 'EADDRINUSE':
      return new ConfigError([`Telemetry:Prometheus:Port: ${host}:${port} is in use`]);
    case 'EACCES':
      return new ConfigError([`Telemetry:Prometheus:Port: binding ${host}:${port} is not permitted`]);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError([`Telemetry:Prometheus:Host: ${host} is not an address of this machine (${err.code})`]);
    default:
      return err;
  }
}
