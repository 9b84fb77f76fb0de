import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorDeviceId } from '../../src/features/simulator/simulator.js';
import { connectTelemetry, eventually, userToken } from '../support/app-harness.js';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { connectDevice } from '../support/mqtt-device.js';
import { PROMETHEUS_CONFIG, PROMETHEUS_RULES, privatePrometheus, type Sample } from '../support/private-prometheus.js';
import { requireCommand } from '../support/private-server.js';
import { requireService } from '../support/services.js';

const DASHBOARD = fileURLToPath(new URL('../../deploy/grafana/telemetry-hub.json', import.meta.url));
const RULE_TESTS = fileURLToPath(new URL('../../deploy/prometheus/alerts.test.yml', import.meta.url));

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** Every panel query of the dashboard, with the variables as Grafana fills them for one job and all instances. */
function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  return panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      panel: p.title,
      expr: t.expr
        .replaceAll('$__rate_interval', '10s')
        .replaceAll('$job', 'telemetry-hub')
        .replaceAll('$instance', '.*'),
    })),
  );
}

const promtool = (...args: string[]) => spawnSync('promtool', args, { encoding: 'utf8' });

/**
 * deploy/prometheus and deploy/grafana against a real Prometheus (Debian's package): it scrapes a live
 * hub process under simulator load through the hub's Prometheus endpoint, with the project's scrape
 * configuration and alert rules, and every dashboard query answers with data.
 */
describe('Prometheus scraping a live hub (deploy/prometheus, deploy/grafana)', { timeout: 60_000 }, () => {
  const available =
    requireCommand('prometheus', "the scrape test runs Debian's prometheus") &&
    requireCommand('promtool', "the rule checks run Debian's promtool");
  let redis = false;
  let hub: ChildHub;
  let prometheus: Awaited<ReturnType<typeof privatePrometheus>>;
  let socket: Socket | undefined;
  let traffic: NodeJS.Timeout | undefined;
  const hubName = `prom${process.pid}`;

  beforeAll(async () => {
    if (!available) return;
    redis = await requireService('redis', 6379);
    hub = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        '--Ingestion:Mqtt:EmbeddedPort=0',
        '--Simulator:Devices=5',
        '--Simulator:Rate=20',
        '--Telemetry:Prometheus:Enabled=true',
        '--Telemetry:Prometheus:Port=0',
        `--Hub:Name=${hubName}`,
        ...(redis ? ['--ConnectionStrings:redis=redis://127.0.0.1:6379'] : []),
      ],
      {},
      30_000,
    );
    const metrics = /(http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(hub.output())![1]!;
    prometheus = await privatePrometheus([new URL(metrics).host]);
    await prometheus.start();
    // A subscriber (fan-out and its latency) and a steady trickle of HTTP requests (health, routes and statuses).
    socket = await connectTelemetry(hub.url, await userToken('demo'));
    await socket.emitWithAck('subscribe', { deviceId: simulatorDeviceId(0) });
    const token = await userToken('demo');
    traffic = setInterval(() => {
      void fetch(`${hub.url}/health/ready`).catch(() => undefined);
      void fetch(`${hub.url}/v1/devices`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
    }, 200);
  }, 45_000);

  afterAll(async () => {
    clearInterval(traffic);
    socket?.close();
    await prometheus?.dispose();
    await hub?.stop();
  });

  it('promtool accepts the scrape configuration and the alert rules, and the rules’ unit tests pass', ({ skip }) => {
    if (!available) return skip();
    const rules = promtool('check', 'rules', PROMETHEUS_RULES);
    expect(rules.status, rules.stdout + rules.stderr).toBe(0);
    const config = promtool('check', 'config', PROMETHEUS_CONFIG);
    expect(config.status, config.stdout + config.stderr).toBe(0);
    const tests = promtool('test', 'rules', RULE_TESTS);
    expect(tests.status, tests.stdout + tests.stderr).toBe(0);
  });

  it('scrapes the hub, and every dashboard query returns data through the HTTP API', async ({ skip }) => {
    if (!available) return skip();
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThanOrEqual(20);
    const missing = new Map(queries.map((q) => [q.expr, q.panel]));
    const answers = new Map<string, Sample[]>();
    // Data: at least one sample with a number (a quantile over no observations is NaN).
    const hasData = (samples: Sample[]) => samples.some((s) => Number.isFinite(Number(s.value[1])));
    await eventually(
      async () => {
        for (const expr of [...missing.keys()]) {
          const samples = await prometheus.query(expr);
          answers.set(expr, samples);
          if (hasData(samples)) missing.delete(expr);
        }
        return missing.size === 0;
      },
      40_000,
      'every dashboard query to return data',
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}; still without data:\n${[...missing].map(([expr, panel]) => `  ${panel}: ${expr} → ${JSON.stringify(answers.get(expr))}`).join('\n')}`,
      );
    });

    // The numbers are the hub's: the simulator's readings, the subscriber's socket, the backplane.
    const value = async (expr: string) => Number((await prometheus.query(expr))[0]?.value[1]);
    expect(await value('sum(telemetryhub_readings_accepted_total{job="telemetry-hub"})')).toBeGreaterThan(0);
    expect(await value('sum(telemetryhub_hub_connections{telemetryhub_transport="socketio"})')).toBe(1);
    expect(await value('sum(telemetryhub_hub_deliveries_total{telemetryhub_transport="socketio"})')).toBeGreaterThan(0);
    expect(await value('sum(telemetryhub_history_written_total)')).toBeGreaterThan(0);
    if (redis)
      expect(await value('sum(messaging_client_sent_messages_total{messaging_system="redis"})')).toBeGreaterThan(0);
    const target = await prometheus.query('up{job="telemetry-hub"}');
    expect(target.map((s) => s.value[1])).toEqual(['1']);
  });

  it('evaluates the alert rules on the hub’s series: the first dropped reading raises TelemetryHubReadingsDropped', async ({
    skip,
  }) => {
    if (!available) return skip();
    const badJson = 'telemetryhub_readings_dropped_total{telemetryhub_drop_reason="bad_json"}';
    // The series is there at 0 before the first drop, so increase() sees that drop.
    await eventually(async () => (await prometheus.query(badJson)).length > 0, 20_000, 'the bad_json series at 0');
    expect(await prometheus.query('ALERTS{alertname="TelemetryHubReadingsDropped"}')).toEqual([]);
    const brokerUrl = /mqtt"?:\s*"(mqtt:\/\/[^"]+)"/.exec(hub.output())![1]!.replace('localhost', '127.0.0.1');
    const device = await connectDevice(brokerUrl, 'demo', 'prom-bad');
    await device.publishAsync('tenants/demo/devices/prom-bad/telemetry', '{not json', { qos: 1 });
    await device.endAsync();
    await eventually(
      async () =>
        (await prometheus.query('ALERTS{alertname="TelemetryHubReadingsDropped", telemetryhub_drop_reason="bad_json"}'))
          .length > 0,
      20_000,
      'the alert',
    );
    const { groups } = await prometheus.get<{
      groups: { rules: { name: string; health: string; lastError?: string }[] }[];
    }>('/api/v1/rules');
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name).sort()).toEqual([
      'TelemetryHubBackplaneErrors',
      'TelemetryHubDown',
      'TelemetryHubHistoryWriterRefusing',
      'TelemetryHubNotReady',
      'TelemetryHubReadingsDropped',
      'TelemetryHubSlowConsumersRising',
    ]);
    expect(rules.filter((r) => r.health !== 'ok')).toEqual([]);
  });
});
