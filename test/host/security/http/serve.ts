// Test support: a WebApplication served by the real host HTTP server on 127.0.0.1, port 0.
import { pino } from 'pino';
import { createHttpServer } from '../../../../src/host/http/http-server.js';
import type { WebApplication } from '../../../../src/host/pipeline/web-application.js';

export interface Served {
  /** e.g. `http://127.0.0.1:43121` */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function serve(web: WebApplication, options: { development?: boolean } = {}): Promise<Served> {
  const fastify = createHttpServer({
    app: web.build(),
    log: pino({ level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    development: options.development ?? true,
  });
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  const address = fastify.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { url: `http://127.0.0.1:${address.port}`, port: address.port, close: () => fastify.close() };
}
