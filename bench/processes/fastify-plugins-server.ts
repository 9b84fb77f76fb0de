import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import jwt from '@fastify/jwt';
import rateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import { BENCH } from '../harness/bench-config.js';
import { serveParent } from '../harness/serve-parent.js';
import { BENCH_JSON, BENCH_ORIGIN } from './json-body.js';

/**
 * Anchor: what a user would build instead of the hub's host for the same authenticated GET —
 * Fastify with the plugins one would pick: a pino request log at info (to stdout, which the bench
 * discards as it does the hub's), `@fastify/cors` for the dashboard's origin, `@fastify/helmet`,
 * `@fastify/rate-limit` (global, per client address, a limit the run never reaches) and
 * `@fastify/jwt` verifying the same HS256 user token (issuer and audience checked) as the hub does.
 */
const app = Fastify({ logger: { level: 'info' } });
await app.register(helmet);
await app.register(cors, { origin: [BENCH_ORIGIN] });
await app.register(rateLimit, { max: 1_000_000_000, timeWindow: 60_000 });
await app.register(jwt, {
  secret: BENCH.jwt.secret,
  verify: { allowedIss: BENCH.jwt.issuer, allowedAud: BENCH.jwt.audience },
});
app.get(
  '/bench/json',
  {
    onRequest: async (request) => {
      await request.jwtVerify();
    },
  },
  async () => BENCH_JSON,
);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
serveParent({}, { url: address });
