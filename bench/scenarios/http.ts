import { withChildren } from '../harness/child-process.js';
import type { Spread } from '../harness/repeat.js';
import type { BenchOptions } from '../harness/options.js';
import { TELEMETRY_ON_ARGS } from '../harness/otlp-sink.js';
import { signUserToken } from '../../src/host/security/jwt-bearer.js';
import { BENCH } from '../harness/bench-config.js';
import { BENCH_ORIGIN } from '../processes/json-body.js';
import { hubArgs, serverExecArgv } from './targets.js';

export interface HttpResult {
  label: string;
  path: string;
  requestsPerSecond?: number;
  p50?: number;
  p99?: number;
  non2xx?: number;
  errors?: number;
  /** The server's CPU time (user + system) per answered request over the measured window: steadier than req/s on a busy machine. */
  cpuUsPerRequest?: number;
  /** req/s over repeated runs. */
  spread?: Spread;
  error?: string;
}

interface Cpu {
  user: number;
  system: number;
}

interface Server {
  label: string;
  process: string;
  args: Record<string, unknown>;
  paths: string[];
  /** Requests carry a user's bearer token and the dashboard's Origin (the authenticated rows). */
  authenticated?: boolean;
}

/**
 * GET JSON under autocannon (50 connections, its own process): node:http, bare Fastify, and the
 * hub's full host pipeline (Fastify → pipeline → exception handler → routing → endpoint → result
 * → request log at Information, JSON to a discarded stdout), at `/bench/json` and `/health/live`;
 * and once more with the request log off, to show what that line costs.
 */
export async function runHttp(opts: BenchOptions): Promise<HttpResult[]> {
  const servers: Server[] = [
    { label: 'node:http', process: 'node-http-server', args: {}, paths: ['/bench/json'] },
    { label: 'bare fastify', process: 'fastify-server', args: {}, paths: ['/bench/json'] },
    {
      label: 'hub host pipeline',
      process: 'hub-server',
      args: hubArgs(5)(undefined),
      paths: ['/bench/json', '/health/live'],
    },
    // Diagnostic: the same pipeline without its per-request log line (Information → Warning).
    {
      label: 'hub host pipeline, request log off',
      process: 'hub-server',
      args: { ...hubArgs(5)(undefined), extraArgs: ['--Logging:LogLevel:Default=Warning'] },
      paths: ['/bench/json'],
    },
    // What a user would build instead for an authenticated GET (issue 29): Fastify with the usual
    // plugins, against the hub's pipeline serving the same JSON behind its own authentication.
    {
      label: 'fastify + plugins (pino, cors, helmet, rate-limit, jwt)',
      process: 'fastify-plugins-server',
      args: {},
      paths: ['/bench/json'],
      authenticated: true,
    },
    {
      label: 'hub host pipeline, authenticated',
      process: 'hub-server',
      args: { ...hubArgs(5)(undefined), extraArgs: [`--Cors:AllowedOrigins=${BENCH_ORIGIN}`] },
      paths: ['/bench/secure-json'],
      authenticated: true,
    },
    // OpenTelemetry on: a server span per request (1 % sampled), the duration histogram, exported.
    {
      label: 'hub host pipeline, telemetry on',
      process: 'hub-server',
      args: { ...hubArgs(5)(undefined), extraArgs: TELEMETRY_ON_ARGS },
      paths: ['/bench/json'],
    },
  ];
  const token = await signUserToken({
    sub: 'bench-user',
    tenantId: BENCH.tenant,
    ...BENCH.jwt,
    expiresInSeconds: 3600,
  });
  const userHeaders = { authorization: `Bearer ${token}`, origin: BENCH_ORIGIN };
  const results: HttpResult[] = [];
  await withChildren(async (start) => {
    const load = await start('http-load');
    for (const s of servers) {
      try {
        await withChildren(async (startServer) => {
          const server = await startServer(s.process, {
            args: [JSON.stringify(s.args)],
            execArgv: serverExecArgv(),
          });
          for (const path of s.paths) {
            const url = `${server.ready.url as string}${path}`;
            const headers = s.authenticated ? userHeaders : undefined;
            if (!opts.quick)
              await load.request('run', { url, headers, connections: opts.httpConnections, duration: 1 }); // warm-up
            const cpu0 = await server.request<Cpu>('cpu');
            const r = await load.request<Omit<HttpResult, 'label' | 'path'> & { total: number }>(
              'run',
              { url, headers, connections: opts.httpConnections, duration: opts.httpDurationSeconds },
              (opts.httpDurationSeconds + 30) * 1000,
            );
            const cpu1 = await server.request<Cpu>('cpu');
            const cpuUs = cpu1.user - cpu0.user + cpu1.system - cpu0.system;
            const { total, ...rest } = r;
            results.push({ label: s.label, path, ...rest, cpuUsPerRequest: total > 0 ? cpuUs / total : undefined });
          }
        });
      } catch (err) {
        for (const path of s.paths)
          results.push({ label: s.label, path, error: (err as Error).message.split('\n')[0] });
      }
    }
  });
  return results;
}
