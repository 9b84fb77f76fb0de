import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import pg from 'pg';
import type { Connector } from '../../src/features/storage/connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../src/features/storage/migrations.js';
import { PgConnector } from '../../src/adapters/postgres/pg-connector.js';
import { PgliteConnector } from '../../src/adapters/pglite/pglite-connector.js';
import { portOpen } from '../harness/port-open.js';
import { TenantDatabase } from '../../src/features/storage/tenant-database.js';
import { series } from '../../src/features/history/history-queries.js';
import { MINUTE_OF } from '../../src/features/history/reading-rows.js';
import { withChildren, type BenchChild } from '../harness/child-process.js';
import type { LatencySummary } from '../harness/histogram.js';
import { Histogram } from '../harness/histogram.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import { fmt, ratio, type Table } from '../harness/table.js';
import { publisherCredentials, type Broker } from './fanout.js';
import { INGEST_THROTTLE, runIngestion, type Consumer, type IngestResult } from './ingestion.js';
import { hubArgs, serverExecArgv } from './targets.js';

type HubStats = {
  accepted: number;
  dropped: Record<string, number>;
  at: number;
  history?: { accepted: number; written: number; dropped: number; pending: number };
};

/** Waits until the writer has nothing pending (or 60 s), then says what it stored of what the hub accepted. */
async function stored(child: BenchChild): Promise<Partial<IngestResult>> {
  const deadline = Date.now() + 60_000;
  let s = await child.request<HubStats>('stats');
  while ((s.history?.pending ?? 0) > 0 && Date.now() < deadline) {
    await sleep(100);
    s = await child.request<HubStats>('stats');
  }
  const h = s.history!;
  return { history: { accepted: s.accepted, written: h.written, dropped: h.dropped, pending: h.pending } };
}

/**
 * QoS 1 end to end (publisher and hub): the hub acknowledges a reading only once the history writer
 * holds it, so a writer slower than the publisher slows ingestion (the broker keeps the rest)
 * instead of refusing readings. `sessions` collects the hubs' client ids: their persistent sessions
 * are removed from the shared broker afterwards.
 */
function hubConsumer(history: boolean, sessions: string[], postgresUrl?: string): Consumer {
  const extraArgs = postgresUrl ? [`--ConnectionStrings:postgres=${postgresUrl}`] : [];
  return {
    label: `hub ingestion QoS 1, history ${history ? `on (${postgresUrl ? 'PostgreSQL' : 'PGlite'})` : 'off'}`,
    publisher: { qos: 1 },
    async start(start, broker) {
      const args = { ...hubArgs(INGEST_THROTTLE)(broker.url), history, extraArgs, qos: 1 };
      sessions.push(args.clientId);
      const child = await start('hub-server', { args: [JSON.stringify(args)], execArgv: serverExecArgv() });
      return {
        child,
        count: async () => {
          const s = await child.request<HubStats>('stats');
          return { count: s.accepted + Object.values(s.dropped).reduce((a, b) => a + b, 0), at: s.at };
        },
      };
    },
    ...(history ? { after: stored } : {}),
  };
}

/** A clean connect under each client id ends the persistent session a QoS 1 hub left on the broker. */
async function removeSessions(broker: Broker, clientIds: readonly string[]): Promise<void> {
  if (broker.id !== 'mosquitto') return;
  for (const clientId of clientIds) {
    try {
      const client = await mqtt.connectAsync(broker.url!, {
        clientId,
        protocolVersion: 5,
        clean: true,
        properties: { sessionExpiryInterval: 0 },
        reconnectPeriod: 0,
      });
      await client.endAsync();
    } catch {
      // Nothing to remove, or the broker is gone: the session expires on its own within the hour.
    }
  }
}

export interface HistoryBench {
  ingest: IngestResult[];
  lag?: { rate: number; summary: LatencySummary; error?: string };
  series: SeriesResult[];
}

/** Ingestion with history off, then on (same ramp), and the writer lag at a steady rate. */
export async function runHistoryIngest(opts: BenchOptions, broker: Broker): Promise<Omit<HistoryBench, 'series'>> {
  const sessions: string[] = [];
  const consumers = [hubConsumer(false, sessions), hubConsumer(true, sessions)];
  const server = await benchPostgres('ingest');
  if (server) consumers.push(hubConsumer(true, sessions, server.url));
  let ingest: IngestResult[];
  try {
    ingest = await runIngestion(opts, broker, consumers);
  } finally {
    await server?.drop();
    await removeSessions(broker, sessions);
  }
  const rate = opts.ingestStart;
  let lag: HistoryBench['lag'];
  try {
    await withChildren(async (start) => {
      const child = await start('hub-server', {
        args: [JSON.stringify({ ...hubArgs(INGEST_THROTTLE)(broker.url), history: true })],
        execArgv: serverExecArgv(),
      });
      const pub = await start('publisher', {
        args: [
          JSON.stringify({
            brokerUrl: child.ready.brokerUrl,
            devices: opts.ingestDevices,
            ...publisherCredentials(broker),
          }),
        ],
      });
      await pub.request('rate', { perSecond: rate });
      await sleep(opts.settleMs);
      await child.request('lag');
      await sleep(opts.ingestWindowMs * 2);
      lag = { rate, summary: await child.request<LatencySummary>('lag') };
    });
  } catch (err) {
    lag = { rate, summary: { count: 0, p50: NaN, p99: NaN, max: NaN }, error: (err as Error).message.split('\n')[0] };
  }
  return { ingest, ...(lag ? { lag } : {}) };
}

export interface SeriesResult {
  engine: string;
  /** Devices registered; readings over `days` at 1/s for `fullDevices` of them. */
  devices: number;
  fullDevices: number;
  days: number;
  rows: number;
  seedSeconds: number;
  queries: number;
  points: number;
  latency: LatencySummary;
  error?: string;
}

/**
 * `series` over `days` at 1-minute buckets for one device with a reading every second (604 800
 * readings for 7 days), in SQL as the endpoint runs it. The table holds `devices` devices; the
 * first `fullDevices` carry the full `days` at 1/s (seeded with generate_series, then their
 * per-minute rollups as the writer keeps them), the queries go round them.
 */
export async function runSeries(
  engine: string,
  connector: Connector,
  o: { devices: number; fullDevices: number; days: number; queries: number },
): Promise<SeriesResult> {
  const seconds = o.days * 86_400;
  const end = Date.UTC(2026, 0, 8);
  const start = end - seconds * 1000;
  const t0 = performance.now();
  await connector.transaction(async (sql) => {
    await sql.query(`insert into tenants (tenant_id) values ('bench') on conflict do nothing`);
    await sql.query(
      `insert into devices (tenant_id, device_id, first_seen, last_seen, last_seq)
       select 'bench', 'dev-' || lpad(i::text, 4, '0'), now(), now(), 0 from generate_series(0, $1::int - 1) as i`,
      [o.devices],
    );
  });
  // One transaction per device: the server never holds one huge transaction.
  for (let d = 0; d < o.fullDevices; d++) {
    await connector.transaction((sql) =>
      sql.query(
        `insert into readings (tenant_id, device_id, seq, ts, received_at, data)
         select 'bench', $1, s, t, t, jsonb_build_object('temperature', 20 + (s % 3600) / 360.0, 'humidity', 40 + s % 17, 'status', 'ok')
         from generate_series(1, $2::int) as s, lateral (select timestamptz 'epoch' + ($3::bigint + s * 1000) * interval '1 millisecond' as t) as x`,
        [`dev-${String(d).padStart(4, '0')}`, seconds, start],
      ),
    );
  }
  // The rollups the history writer keeps beside the readings it stores (see INSERT_READINGS).
  for (let d = 0; d < o.fullDevices; d++) {
    await connector.transaction((sql) =>
      sql.query(
        `insert into reading_rollups (tenant_id, device_id, minute, field, count, min, max, sum)
         select tenant_id, device_id, ${MINUTE_OF('ts')}, null, count(*), null, null, null from readings where device_id = $1 group by 1, 2, 3
         union all
         select r.tenant_id, r.device_id, ${MINUTE_OF('r.ts')}, kv.key, count(*), min(kv.value::float8), max(kv.value::float8), sum(kv.value::float8)
         from readings r cross join lateral jsonb_each(r.data) as kv
         where r.device_id = $1 and jsonb_typeof(kv.value) = 'number' group by 1, 2, 3, 4`,
        [`dev-${String(d).padStart(4, '0')}`],
      ),
    );
  }
  await connector.transaction(async (sql) => {
    await sql.query('analyze readings');
    await sql.query('analyze reading_rollups');
  });
  const seedSeconds = (performance.now() - t0) / 1000;
  console.log(`series ${engine}: seeded ${o.fullDevices * seconds} readings in ${seedSeconds.toFixed(0)} s`);
  const database = new TenantDatabase(connector);
  const latency = new Histogram();
  let points = 0;
  for (let q = 0; q < o.queries; q++) {
    const deviceId = `dev-${String(q % o.fullDevices).padStart(4, '0')}`;
    const began = performance.now();
    const result = await database.withTenant('bench', (sql) =>
      series(sql, { deviceId, from: start, to: end + 1000, bucketMs: 60_000 }),
    );
    latency.record(performance.now() - began);
    points = result.length;
  }
  return {
    engine,
    devices: o.devices,
    fullDevices: o.fullDevices,
    days: o.days,
    rows: o.fullDevices * seconds,
    seedSeconds,
    queries: o.queries,
    points,
    latency: latency.summary(),
  };
}

/** PostgreSQL for the bench when 127.0.0.1:5432 answers: a migrated database of this run, dropped after. */
export async function benchPostgres(
  purpose: string,
): Promise<{ url: string; connector: Connector; drop(): Promise<void> } | undefined> {
  if (!(await portOpen(5432))) return undefined;
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  // CREATE/DROP DATABASE cannot run inside a transaction, so not through a connector.
  const adminSql = async (text: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  const name = `hub_bench_${purpose}_${process.pid}`;
  await adminSql(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const connector = new PgConnector({
    connectionString: url.toString(),
    maxConnections: 2,
    statementTimeoutMs: 600_000,
    log: { warn: () => undefined },
  });
  await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
  return {
    url: url.toString(),
    connector,
    drop: async () => {
      await connector.close();
      await adminSql(`drop database if exists ${name} with (force)`).catch(() => undefined);
    },
  };
}

/** The series measurement on each engine at hand: PGlite always, PostgreSQL when 127.0.0.1:5432 answers. */
export async function runSeriesEngines(opts: BenchOptions): Promise<SeriesResult[]> {
  const size = (full: number) =>
    opts.quick
      ? { devices: 1000, fullDevices: 1, days: 1 / 24, queries: 5 }
      : { devices: 1000, fullDevices: full, days: 7, queries: 20 };
  const results: SeriesResult[] = [];
  const failed = (engine: string, err: unknown): SeriesResult => ({
    engine,
    devices: 0,
    fullDevices: 0,
    days: 0,
    rows: 0,
    seedSeconds: 0,
    queries: 0,
    points: 0,
    latency: { count: 0, p50: NaN, p99: NaN, max: NaN },
    error: (err as Error).message.split('\n')[0],
  });

  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-series-'));
  try {
    const connector = await PgliteConnector.open(join(dir, 'data'));
    try {
      await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
      results.push(await runSeries('PGlite (embedded)', connector, size(1)));
    } finally {
      await connector.close();
    }
  } catch (err) {
    results.push(failed('PGlite (embedded)', err));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    const server = await benchPostgres('series');
    if (server) {
      try {
        results.push(await runSeries('PostgreSQL 127.0.0.1:5432', server.connector, size(2)));
      } finally {
        await server.drop();
      }
    }
  } catch (err) {
    results.push(failed('PostgreSQL 127.0.0.1:5432', err));
  }
  return results;
}

export function historyTables(opts: BenchOptions, result: HistoryBench): Table[] {
  const off = result.ingest[0];
  const lost = result.ingest.filter((r) => r.history && r.history.written !== r.history.accepted);
  const ingest: Table = {
    title: `History: ingestion with history off vs on (${opts.ingestDevices} devices, the ingestion ramp)`,
    columns: [
      'consumer',
      'max readings/s',
      '× history off',
      `CPU µs/reading @${fmt.rate(opts.ingestStart)}/s`,
      'stored / accepted',
      'ramp stopped',
    ],
    rows: result.ingest.map((r) => [
      r.label,
      r.error ? `ERROR ${r.error}` : fmt.rate(r.max),
      r === off ? '1.00×' : fmt.ratio(ratio(r.max, off?.max)),
      fmt.num(r.cpuUsPerReading),
      r.history
        ? `${r.history.written} / ${r.history.accepted}${r.history.dropped ? ` (${r.history.dropped} refused: queue full)` : ''}`
        : '–',
      r.stop,
    ]),
    notes: [
      'Goal: history on ≥ 0.8× history off, and every accepted reading stored (stored = accepted once the publisher stops), none refused: at QoS 1 a full writer slows ingestion instead (the broker keeps the rest).',
      ...lost.map(
        (r) =>
          `NOT STORED (${r.label}): ${r.history!.accepted - r.history!.written} accepted readings (${r.history!.dropped} refused by the full queue, ${r.history!.pending} still pending 60 s after the publisher stopped)`,
      ),
    ],
  };
  const lag: Table = {
    title: 'History: writer lag, accepted → committed (ms)',
    columns: ['rate', 'readings', 'p50', 'p99', 'max'],
    rows: result.lag
      ? [
          [
            `${fmt.rate(result.lag.rate)}/s`,
            String(result.lag.summary.count),
            fmt.ms(result.lag.summary.p50),
            fmt.ms(result.lag.summary.p99),
            result.lag.error ? `ERROR ${result.lag.error}` : fmt.ms(result.lag.summary.max),
          ],
        ]
      : [],
    notes: ['History:BatchSize 1000, History:FlushIntervalMilliseconds 50 (the defaults).'],
  };
  const seriesTable: Table = {
    title: 'History: series, 1-minute buckets over the whole range, one device per query (ms)',
    columns: ['engine', 'devices', 'range', 'readings per queried device', 'points', 'queries', 'p50', 'p99', 'seeded'],
    rows: result.series.map((s) =>
      s.error
        ? [s.engine, `ERROR ${s.error}`, '', '', '', '', '', '', '']
        : [
            s.engine,
            String(s.devices),
            s.days >= 1 ? `${s.days} d` : `${Math.round(s.days * 24)} h`,
            String(s.rows / s.fullDevices),
            String(s.points),
            String(s.queries),
            fmt.ms(s.latency.p50),
            fmt.ms(s.latency.p99),
            `${s.rows} rows in ${s.seedSeconds.toFixed(0)} s`,
          ],
    ),
    notes: [
      "Every device is registered; the queried devices carry a reading every second over the range (generate_series), the rest none: a series query reads only its own device's rows (index on tenant, device, ts), so their readings would change the table size, not the work per query.",
    ],
  };
  return [ingest, lag, seriesTable];
}
