import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Errors } from '../host/errors.js';
import { hostNameOf, requestHost } from '../host/edge/host-header.js';
import { isLoopbackHost } from '../host/loopback-host.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../host/problem.js';
import { newTraceId } from '../host/trace-context.js';
import type { Orchestrator } from './orchestrator.js';
import type { TraceReceiver } from './trace-receiver.js';

/**
 * The orchestrator's own page (never deployed): every resource with its state, endpoints and, when
 * it failed, its last lines; a live log per resource. Loopback only, and only for a `Host` that is a
 * loopback address (`127.0.0.1`, `[::1]`) or `localhost`, any port: a page of another site whose name
 * was rebound to 127.0.0.1 (DNS rebinding) sends its own name and gets a 400 problem, no data.
 * `GET /api/resources` is the
 * same list as JSON; `GET /api/resources/{name}/logs` streams a resource's log as server-sent
 * events (the kept lines first); `POST /api/resources/{name}/restart` (header `x-dev-dashboard: 1`)
 * stops a resource and starts it again. `GET /api/traces[?q=&limit=]` lists the newest traces the
 * processes exported, `GET /api/traces/{traceId}` one trace's spans as a tree; `GET /api/info` the
 * page's notes (which queue runs).
 */
export class DevDashboard {
  readonly #server: Server;
  readonly #orchestrator: Orchestrator;
  readonly #streams = new Set<ServerResponse>();

  /** `traces`: the local receiver the processes export to; `notes`: what the page says first (the queue in use). */
  constructor(orchestrator: Orchestrator, options: { traces?: TraceReceiver; notes?: readonly string[] } = {}) {
    this.#orchestrator = orchestrator;
    const json = (res: ServerResponse, status: number, value: unknown) =>
      void res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify(value));
    this.#server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://dev').pathname;
      if (!isLocalHostHeader(requestHost(req.headers))) return refuseHost(req, res, path);
      const restart = /^\/api\/resources\/([^/]+)\/restart$/.exec(path);
      if (req.method === 'POST' && restart) {
        // A custom header no cross-site form can send, and no CORS answer lets a script send it.
        if (req.headers['x-dev-dashboard'] !== '1')
          return void res.writeHead(403, { 'content-type': 'text/plain' }).end('send x-dev-dashboard: 1');
        // Accepted at once; the page follows the state.
        if (this.#orchestrator.restart(decodeURIComponent(restart[1]!))) return void res.writeHead(202).end();
        return void res
          .writeHead(409, { 'content-type': 'text/plain' })
          .end('not started, already restarting, or stopping');
      }
      if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
      if (path === '/')
        return void res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          .end(PAGE);
      if (path === '/api/resources')
        return json(
          res,
          200,
          this.#orchestrator.resources.map((r) => r.status()),
        );
      if (path === '/api/info')
        return json(res, 200, { notes: options.notes ?? [], traces: options.traces?.url ?? null });
      if (path === '/api/traces') {
        const query = new URL(req.url ?? '/', 'http://dev').searchParams;
        const limit = Math.min(500, Math.max(1, Number(query.get('limit')) || 50));
        return json(res, 200, options.traces?.list(limit, query.get('q') ?? '') ?? []);
      }
      const oneTrace = /^\/api\/traces\/([0-9a-f]{32})$/.exec(path);
      if (oneTrace) {
        const spans = options.traces?.trace(oneTrace[1]!);
        return spans === undefined ? json(res, 404, { error: 'no such trace kept' }) : json(res, 200, spans);
      }
      const logs = /^\/api\/resources\/([^/]+)\/logs$/.exec(path);
      const resource = logs ? this.#orchestrator.get(decodeURIComponent(logs[1]!)) : undefined;
      if (resource === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
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

/** A loopback address or `localhost`, with an optional port: what a browser sends for a page of this machine. */
function isLocalHostHeader(host: string | null | undefined): boolean {
  return typeof host === 'string' && isLoopbackHost(hostNameOf(host));
}

function refuseHost(req: IncomingMessage, res: ServerResponse, path: string): void {
  req.resume();
  const body = problem(Errors.HTTP_BAD_REQUEST, 'This page answers only Host 127.0.0.1, localhost or [::1].', {
    instance: path,
    traceId: newTraceId(),
  });
  res.writeHead(400, { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' }).end(JSON.stringify(body));
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
<ul id="notes"></ul>
<table><thead><tr><th>resource</th><th>type</th><th>state</th><th>pid</th><th>endpoints</th><th></th></tr></thead><tbody id="rows"></tbody></table>
<h2 id="logtitle">log</h2><pre id="log"></pre>
<h2>traces</h2>
<p>Recent traces the hubs, the worker and the gateway exported to this page. <input id="q" placeholder="filter: span, service or instance"> Click a trace for its spans.</p>
<table><thead><tr><th>started</th><th>root span</th><th>processes</th><th>spans</th><th>duration</th></tr></thead><tbody id="traces"></tbody></table>
<h3 id="tracetitle"></h3>
<table><thead><tr><th>span</th><th>kind</th><th>process</th><th>start</th><th>duration</th></tr></thead><tbody id="spans"></tbody></table>
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
let openTrace = null;
const ms = (v) => v < 1 ? v.toFixed(2) + ' ms' : v < 1000 ? v.toFixed(1) + ' ms' : (v / 1000).toFixed(2) + ' s';
async function showTrace(id) {
  openTrace = id;
  let spans; try { spans = await (await fetch('/api/traces/' + id)).json(); } catch { return; }
  document.getElementById('tracetitle').textContent = 'trace ' + id;
  const body = document.getElementById('spans'); body.textContent = '';
  const t0 = Math.min(...spans.map((s) => s.startMs));
  for (const s of spans) {
    const tr = el('tr'); const name = el('td', '\u00a0'.repeat(s.depth * 3) + s.name + (s.links.length ? ' \u2194 ' + s.links.length + ' link' : ''), s.error ? 'failed' : '');
    tr.append(name, el('td', s.kind), el('td', s.instance || s.service), el('td', '+' + ms(s.startMs - t0)), el('td', ms(s.durationMs))); body.append(tr);
  }
}
async function refreshTraces() {
  const q = document.getElementById('q').value;
  let list; try { list = await (await fetch('/api/traces?limit=30&q=' + encodeURIComponent(q))).json(); } catch { return; }
  const body = document.getElementById('traces'); body.textContent = '';
  for (const t of list) {
    const tr = el('tr'); if (t.traceId === openTrace) tr.className = 'sel';
    const name = el('td', t.name + (t.missingParents ? ' (' + t.missingParents + ' without their parent yet)' : ''), 'name' + (t.error ? ' failed' : '')); name.onclick = () => showTrace(t.traceId);
    tr.append(el('td', new Date(t.startMs).toLocaleTimeString()), name, el('td', t.services.join(', ')), el('td', String(t.spans)), el('td', ms(t.durationMs))); body.append(tr);
  }
}
fetch('/api/info').then((r) => r.json()).then((info) => { for (const n of info.notes) document.getElementById('notes').append(el('li', n)); });
refresh(); setInterval(refresh, 1000); refreshTraces(); setInterval(refreshTraces, 2000);
</script></body></html>`;
