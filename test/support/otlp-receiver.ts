import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { otlpRequests } from '../../src/dev/otlp-proto.js';

const TO_OBJECT = { longs: Number, enums: String, bytes: Array, defaults: false, arrays: true };

type AnyValue = { stringValue?: string; intValue?: number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key?: string; value: AnyValue };
type Resource = { attributes?: KeyValue[] };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: string;
  scope: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: string | undefined;
  resource: Record<string, unknown>;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  scope: string;
  /** Each data point's attributes and value (sum/gauge value, histogram count). */
  points: { attributes: Record<string, unknown>; value: number }[];
  resource: Record<string, unknown>;
}

export interface ReceivedLog {
  scope: string;
  body: string;
  severityText: string;
  traceId: string;
  spanId: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

/** A small OTLP/HTTP receiver (protobuf, as a collector's): keeps what it receives for tests to read. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly metrics: ReceivedMetric[] = [];
  readonly logs: ReceivedLog[] = [];
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on `port` (0: a free one; a given port brings a stopped receiver back where it was). */
  static async start(port = 0): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        try {
          if (req.headers['content-type'] !== 'application/x-protobuf')
            throw new Error(`unexpected content-type ${req.headers['content-type']}`);
          receiver.#take(req.url ?? '', body);
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } catch (err) {
          res.writeHead(400).end(String(err));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  metricNames(): Set<string> {
    return new Set(this.metrics.map((m) => m.name));
  }

  /** The latest value of a metric's point whose attributes include `match`. */
  latest(name: string, match: Record<string, unknown> = {}): number | undefined {
    let value: number | undefined;
    for (const metric of this.metrics) {
      if (metric.name !== name) continue;
      for (const point of metric.points) {
        if (Object.entries(match).every(([k, v]) => point.attributes[k] === v)) value = point.value;
      }
    }
    return value;
  }

  clear(): void {
    this.spans.length = 0;
    this.metrics.length = 0;
    this.logs.length = 0;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #take(path: string, body: Buffer): void {
    const { traces, metrics, logs } = otlpRequests();
    if (path === '/v1/traces') {
      const request = traces.toObject(traces.decode(body), TO_OBJECT) as {
        resourceSpans?: { resource?: Resource; scopeSpans?: { scope?: { name: string }; spans?: RawSpan[] }[] }[];
      };
      for (const rs of request.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            this.spans.push({
              traceId: hex(s.traceId),
              spanId: hex(s.spanId),
              parentSpanId: hex(s.parentSpanId),
              name: s.name ?? '',
              kind: s.kind,
              scope: ss.scope?.name ?? '',
              attributes: attributesOf(s.attributes),
              links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
              // An exporter always sends a span's status, UNSET as code 0, which decodes as absent.
              status: s.status && (s.status.code ?? 'STATUS_CODE_UNSET'),
              resource,
            });
          }
        }
      }
    } else if (path === '/v1/metrics') {
      const request = metrics.toObject(metrics.decode(body), TO_OBJECT) as {
        resourceMetrics?: {
          resource?: Resource;
          scopeMetrics?: { scope?: { name: string }; metrics?: RawMetric[] }[];
        }[];
      };
      for (const rm of request.resourceMetrics ?? []) {
        const resource = attributesOf(rm.resource?.attributes);
        for (const sm of rm.scopeMetrics ?? []) {
          for (const m of sm.metrics ?? []) {
            const points = (m.sum ?? m.gauge ?? m.histogram)?.dataPoints ?? [];
            this.metrics.push({
              name: m.name,
              unit: m.unit ?? '',
              scope: sm.scope?.name ?? '',
              points: points.map((p) => ({
                attributes: attributesOf(p.attributes),
                value: p.count ?? p.asInt ?? p.asDouble ?? 0,
              })),
              resource,
            });
          }
        }
      }
    } else if (path === '/v1/logs') {
      const request = logs.toObject(logs.decode(body), TO_OBJECT) as {
        resourceLogs?: { resource?: Resource; scopeLogs?: { scope?: { name: string }; logRecords?: RawLog[] }[] }[];
      };
      for (const rl of request.resourceLogs ?? []) {
        const resource = attributesOf(rl.resource?.attributes);
        for (const sl of rl.scopeLogs ?? []) {
          for (const l of sl.logRecords ?? []) {
            this.logs.push({
              scope: sl.scope?.name ?? '',
              body: l.body?.stringValue ?? '',
              severityText: l.severityText ?? '',
              traceId: hex(l.traceId),
              spanId: hex(l.spanId),
              attributes: attributesOf(l.attributes),
              resource,
            });
          }
        }
      }
    } else {
      throw new Error(`unknown OTLP path ${path}`);
    }
  }
}

type RawSpan = {
  traceId?: number[];
  spanId?: number[];
  parentSpanId?: number[];
  name?: string;
  kind: string;
  attributes?: KeyValue[];
  links?: { traceId?: number[]; spanId?: number[] }[];
  status?: { code?: string };
};
type RawPoint = { attributes?: KeyValue[]; asInt?: number; asDouble?: number; count?: number };
type RawMetric = {
  name: string;
  unit?: string;
  sum?: { dataPoints?: RawPoint[] };
  gauge?: { dataPoints?: RawPoint[] };
  histogram?: { dataPoints?: RawPoint[] };
};
type RawLog = {
  body?: AnyValue;
  severityText?: string;
  traceId?: number[];
  spanId?: number[];
  attributes?: KeyValue[];
};

function hex(bytes: number[] | undefined): string {
  return bytes === undefined ? '' : Buffer.from(bytes).toString('hex');
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key = '', value } of list ?? [])
    out[key] = value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue;
  return out;
}
