import type { Logger } from 'pino';
import type { ServiceProvider } from '../../../src/host/container/service-provider.js';
import { createHttpServer } from '../../../src/host/http/http-server.js';
import { HttpServerService } from '../../../src/host/http/http-server-service.js';
import { WebApplication } from '../../../src/host/pipeline/web-application.js';
import { captureLog, type LogLine } from './capture-log.js';

export interface TestServer {
  server: HttpServerService;
  web: WebApplication;
  /** The log lines written so far (JSON objects). */
  logs: () => LogLine[];
  log: Logger;
}

/**
 * The shared host's web part without the hub: a WebApplication configured by the test, behind
 * the real Fastify server. Requests go through `server.inject`.
 */
export function testServer(
  configure: (web: WebApplication) => void,
  options: { development?: boolean; bodyLimitBytes?: number; services?: ServiceProvider } = {},
): TestServer {
  const capture = captureLog();
  const development = options.development ?? false;
  const web = new WebApplication({ development });
  configure(web);
  const pipeline = web.build();
  const fastify = createHttpServer({
    app: pipeline,
    log: capture.log,
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    development,
    services: () => options.services,
  });
  const server = new HttpServerService({ fastify, log: capture.log, port: 0, host: '127.0.0.1' });
  return {
    server,
    web,
    log: capture.log,
    logs: capture.logs,
  };
}
