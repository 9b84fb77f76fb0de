import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { privateServer, type PrivateServer } from './private-server.js';

export const PROMETHEUS_CONFIG = fileURLToPath(new URL('../../deploy/prometheus/prometheus.yml', import.meta.url));
export const PROMETHEUS_RULES = fileURLToPath(new URL('../../deploy/prometheus/alerts.yml', import.meta.url));

interface ScrapeConfig {
  global: Record<string, unknown>;
  rule_files: string[];
  scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
}

/** One sample of an instant query: its labels and value (`NaN` as Prometheus writes it). */
export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * Debian's Prometheus on an ephemeral port with the project's scrape configuration and alert rules
 * (deploy/prometheus/), its targets pointed at `targets` (host:port) and its intervals shortened to
 * `intervalSeconds`; its storage in a temp directory of its own. Stopped by PID.
 */
export async function privatePrometheus(
  targets: readonly string[],
  intervalSeconds = 1,
): Promise<
  PrivateServer & { query(expr: string): Promise<Sample[]>; get<T>(path: string): Promise<T>; dispose(): Promise<void> }
> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-test-'));
  const config = parse(readFileSync(PROMETHEUS_CONFIG, 'utf8')) as ScrapeConfig;
  config.global = {
    ...config.global,
    scrape_interval: `${intervalSeconds}s`,
    evaluation_interval: `${intervalSeconds}s`,
  };
  config.rule_files = [PROMETHEUS_RULES];
  for (const job of config.scrape_configs) job.static_configs = [{ targets: [...targets] }];
  writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
  const server = await privateServer('prometheus', (port) => [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error ?? res.status}`);
    return body.data;
  };
  return {
    port: server.port,
    start: () => server.start(),
    stop: () => server.stop(),
    get,
    query: async (expr) => (await get<{ result: Sample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    dispose: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
