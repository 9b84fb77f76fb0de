import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { type OtlpRequests, otlpRequests } from './otlp-proto.js';

/** One span as the page shows it. */
export interface DevSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: string;
  /** `service.name` of the process that recorded it, and its `service.instance.id`. */
  service: string;
  instance: string;
  scope: string;
  startMs: number;
  durationMs: number;
  error: boolean;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

/** A trace in the list: its root (or earliest) span, how many spans, how long. */
export interface DevTraceSummary {
  traceId: string;
  name: string;
  service: string;
  instance: string;
  spans: number;
  services: string[];
  startMs: number;
  durationMs: number;
  error: boolean;
  /** A span's parent has not arrived (yet): a process that did not export it, or an orphan. */
  missingParents: number;
}

type KeyValue = {
  key?: string;
  value: { stringValue?: string; intValue?: number; doubleValue?: number; boolValue?: boolean };
};
type RawSpan = {
  traceId?: number[];
  spanId?: number[];
  parentSpanId?: number[];
  name?: string;
  kind?: string;
  startTimeUnixNano?: number;
  endTimeUnixNano?: number;
  attributes?: KeyValue[];
  links?: { traceId?: number[]; spanId?: number[] }[];
  status?: { code?: string };
};
type Request = {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { scope?: { name: string }; spans?: RawSpan[] }[];
  }[];
};

/**
 * The orchestrator's local OTLP/HTTP receiver (protobuf, what the hubs, the worker and the gateway
 * export): keeps the spans of the newest `maxTraces` traces for the page, as a development
 * dashboard does; metrics and log records are accepted and dropped. Loopback only.
 */
export class TraceReceiver {
  readonly #server: Server;
  readonly #traces = new Map<string, DevSpan[]>();
  readonly #maxTraces: number;
  readonly #maxSpansPerTrace: number;
  readonly #decoder: OtlpRequests['traces'];

  constructor(options: { maxTraces?: number; maxSpansPerTrace?: number } = {}) {
    this.#maxTraces = options.maxTraces ?? 500;
    this.#maxSpansPerTrace = options.maxSpansPerTrace ?? 1000;
    this.#decoder = otlpRequests().traces;
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
        try {
          if (req.url === '/v1/traces') {
            const body = Buffer.concat(chunks);
            this.#take(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body);
          } else if (req.url !== '/v1/metrics' && req.url !== '/v1/logs') {
            return void res.writeHead(404).end();
          }
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } catch (err) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        }
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', resolve);
    });
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** The newest traces first; `filter` keeps those with a span whose name or service contains it. */
  list(limit = 50, filter = ''): DevTraceSummary[] {
    const out: DevTraceSummary[] = [];
    const needle = filter.toLowerCase();
    for (const spans of [...this.#traces.values()].reverse()) {
      if (
        needle &&
        !spans.some(
          (s) =>
            s.name.toLowerCase().includes(needle) ||
            s.service.toLowerCase().includes(needle) ||
            s.instance.toLowerCase().includes(needle),
        )
      )
        continue;
      out.push(summarise(spans));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** One trace's spans, parents before children, each in start order; undefined when not kept. */
  trace(traceId: string): (DevSpan & { depth: number })[] | undefined {
    const spans = this.#traces.get(traceId);
    if (spans === undefined) return undefined;
    const ids = new Set(spans.map((s) => s.spanId));
    const children = new Map<string, DevSpan[]>();
    for (const s of [...spans].sort((a, b) => a.startMs - b.startMs)) {
      const parent = ids.has(s.parentSpanId) ? s.parentSpanId : '';
      children.set(parent, [...(children.get(parent) ?? []), s]);
    }
    const out: (DevSpan & { depth: number })[] = [];
    const walk = (parent: string, depth: number) => {
      for (const s of children.get(parent) ?? []) {
        out.push({ ...s, depth });
        walk(s.spanId, depth + 1);
      }
    };
    walk('', 0);
    return out;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #take(body: Buffer): void {
    const request = this.#decoder.toObject(this.#decoder.decode(body), {
      longs: Number,
      enums: String,
      bytes: Array,
      defaults: false,
      arrays: true,
    }) as Request;
    for (const rs of request.resourceSpans ?? []) {
      const resource = attributesOf(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          const startNs = s.startTimeUnixNano ?? 0;
          this.#add({
            traceId: hex(s.traceId),
            spanId: hex(s.spanId),
            parentSpanId: hex(s.parentSpanId),
            name: s.name ?? '',
            kind: (s.kind ?? '').replace(/^SPAN_KIND_/, '').toLowerCase(),
            service: String(resource['service.name'] ?? ''),
            instance: String(resource['service.instance.id'] ?? ''),
            scope: ss.scope?.name ?? '',
            startMs: startNs / 1e6,
            durationMs: Math.max(0, ((s.endTimeUnixNano ?? startNs) - startNs) / 1e6),
            error: s.status?.code === 'STATUS_CODE_ERROR',
            attributes: attributesOf(s.attributes),
            links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          });
        }
      }
    }
  }

  #add(span: DevSpan): void {
    let spans = this.#traces.get(span.traceId);
    if (spans === undefined) {
      if (this.#traces.size >= this.#maxTraces) this.#traces.delete(this.#traces.keys().next().value!);
      this.#traces.set(span.traceId, (spans = []));
    }
    if (spans.length < this.#maxSpansPerTrace) spans.push(span);
  }
}

function summarise(spans: DevSpan[]): DevTraceSummary {
  const ids = new Set(spans.map((s) => s.spanId));
  const root = spans.find((s) => s.parentSpanId === '') ?? spans.reduce((a, b) => (b.startMs < a.startMs ? b : a));
  const start = Math.min(...spans.map((s) => s.startMs));
  const end = Math.max(...spans.map((s) => s.startMs + s.durationMs));
  return {
    traceId: root.traceId,
    name: root.name,
    service: root.service,
    instance: root.instance,
    spans: spans.length,
    services: [...new Set(spans.map((s) => s.instance || s.service))],
    startMs: start,
    durationMs: end - start,
    error: spans.some((s) => s.error),
    missingParents: spans.filter((s) => s.parentSpanId !== '' && !ids.has(s.parentSpanId)).length,
  };
}

function hex(bytes: number[] | undefined): string {
  return bytes === undefined ? '' : Buffer.from(bytes).toString('hex');
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key = '', value } of list ?? [])
    out[key] = value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue;
  return out;
}
