import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Orchestrator } from './orchestrator.js';

/**
 * The orchestrator's own page (never deployed): every resource with its state, endpoints and, when
 * it failed, its last lines; a live log per resource. Loopback only. `GET /api/resources` is the
 * same list as JSON; `GET /api/resources/{name}/logs` streams a resource's log as server-sent
 * events (the kept lines first); `POST /api/resources/{name}/restart` (header `x-dev-dashboard: 1`)
 * stops a resource and starts it again.
 */
export class DevDashboard {
  readonly #server: Server;
  readonly #orchestrator: Orchestrator;
  readonly #streams = new Set<ServerResponse>();

  constructor(orchestrator: Orchestrator) {
    this.#orchestrator = orchestrator;
    this.#server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://dev').pathname;
      const restart = /^\/api\/resources\/([^/]+)\/restart$/.exec(path);
      if (req.method === 'POST' && restart) {
        // A custom header no cross-site form can send, and no CORS answer lets a script send it.
        if (req.headers['x-dev-dashboard'] !== '1') return void res.writeHead(403, { 'content-type': 'text/plain' }).end('send x-dev-dashboard: 1');
        // Accepted at once; the page follows the state.
        if (this.#orchestrator.restart(decodeURIComponent(restart[1]!))) return void res.writeHead(202).end();
        return void res.writeHead(409, { 'content-type': 'text/plain' }).end('not started, already restarting, or stopping');
      }
      if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
      if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE);
      if (path === '/api/resources') {
        return void res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(this.#orchestrator.resources.map((r) => r.status())));
      }
      const logs = /^\/api\/resources\/([^/]+)\/logs$/.exec(path);
      const resource = logs ? this.#orchestrator.get(decodeURIComponent(logs[1]!)) : undefined;
      if (resource === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      this.#streams.add(res);
      let blocked = false;
      let dropped = 0;
      const send = (line: string) => {
        if (blocked) return void dropped++;
        if (!res.write(`data: ${JSON.stringify(line)}\n\n`)) {
          // A tab that does not read is not buffered for: lines are counted and skipped.
          blocked = true;
          res.once('drain', () => {
            blocked = false;
            if (dropped > 0) send(`[dashboard] ${dropped} lines skipped`);
            dropped = 0;
          });
        }
      };
      for (const line of resource.log.tail(200)) send(line);
      const unfollow = resource.log.follow(send);
      res.once('close', () => {
        unfollow();
        this.#streams.delete(res);
      });
    });
  }

  async listen(port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', resolve);
    });
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const res of this.#streams) res.end();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Telemetry Hub — development</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5rem;color:#222}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}
.state{font-weight:600}.running,.completed{color:#0a7d32}.failed{color:#b00020}.skipped,.stopped{color:#777}.starting,.waiting,.stopping,.restarting{color:#a66b00}
pre{background:#111;color:#ddd;padding:.6rem;max-height:24rem;overflow:auto;font-size:12px;white-space:pre-wrap}
tr.sel{background:#eef4ff}td.name{cursor:pointer;text-decoration:underline}
</style></head><body>
<h1>Telemetry Hub — development</h1>
<p>Resources this orchestrator started. Click a name for its live log. Ctrl-C in the terminal stops everything.</p>
<table><thead><tr><th>resource</th><th>type</th><th>state</th><th>pid</th><th>endpoints</th><th></th></tr></thead><tbody id="rows"></tbody></table>
<h2 id="logtitle">log</h2><pre id="log"></pre>
<script>
let selected = null, source = null;
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
function follow(name) {
  selected = name; if (source) source.close();
  const log = document.getElementById('log'); log.textContent = '';
  document.getElementById('logtitle').textContent = 'log: ' + name;
  source = new EventSource('/api/resources/' + encodeURIComponent(name) + '/logs');
  source.onmessage = (m) => { log.textContent += JSON.parse(m.data) + '\\n'; if (log.textContent.length > 400000) log.textContent = log.textContent.slice(-200000); log.scrollTop = log.scrollHeight; };
}
async function refresh() {
  let list; try { list = await (await fetch('/api/resources')).json(); } catch { return; }
  const rows = document.getElementById('rows'); rows.textContent = '';
  for (const r of list) {
    const tr = el('tr'); if (r.name === selected) tr.className = 'sel';
    const name = el('td', r.name, 'name'); name.onclick = () => follow(r.name); tr.append(name, el('td', r.type));
    const state = el('td', r.state + (r.state === 'failed' && r.exitCode != null ? ' (exit ' + r.exitCode + ')' : ''), 'state ' + r.state);
    if (r.detail) state.title = r.detail;
    tr.append(state, el('td', r.pid == null ? '' : String(r.pid)));
    const eps = el('td'); for (const e of r.endpoints) { const a = el('a', e.name + ': ' + e.url); if (/^https?:/.test(e.url)) a.href = e.url; eps.append(a, el('br')); }
    const act = el('td'); if (r.pid != null && !['restarting', 'stopping', 'waiting', 'skipped'].includes(r.state)) { const b = el('button', 'restart'); b.onclick = () => fetch('/api/resources/' + encodeURIComponent(r.name) + '/restart', { method: 'POST', headers: { 'x-dev-dashboard': '1' } }).then(refresh); act.append(b); }
    tr.append(eps, act); rows.append(tr);
    if (r.state === 'failed' && r.lastLines.length) { const x = el('tr'); const td = el('td'); td.colSpan = 6; td.append(el('pre', r.lastLines.join('\\n'))); x.append(td); rows.append(x); }
  }
}
refresh(); setInterval(refresh, 1000);
</script></body></html>`;
