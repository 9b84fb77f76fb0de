import Fastify from 'fastify';
import { serveParent } from '../harness/serve-parent.js';
import { BENCH_JSON } from './json-body.js';

/** Anchor: bare Fastify answering `GET /bench/json` (no logger, no hooks). */
const app = Fastify({ logger: false });
app.get('/bench/json', async () => BENCH_JSON);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
serveParent({}, { url: address });
