import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent } from '../harness/serve-parent.js';
import { BENCH_JSON } from './json-body.js';

/** Anchor: node:http answering `GET /bench/json`, the floor under every framework. */
const server = createServer((req, res) => {
  if (req.url === '/bench/json') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(BENCH_JSON));
    return;
  }
  res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
serveParent({}, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
