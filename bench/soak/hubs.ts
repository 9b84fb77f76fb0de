import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOAK } from './config.js';
import { freePort, waitForPort } from './ports.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** Where each hub finds the services, and the soak's throttle. */
export interface HubEnvironment {
  mqttUrl: string;
  redisUrl: string;
  postgresUrl: string;
  /** Unset: RabbitMQ was not reachable, the hubs use their in-process queue. */
  rabbitMqUrl: string | undefined;
  queueName: string;
  throttlePerSecond: number;
  /** `Cluster:IngestPartitions`. */
  partitions: number;
  scratch: string;
}

/** One hub instance (slot), restarted as a new process on the same port. */
export interface HubSlot {
  readonly slot: number;
  readonly port: number;
  readonly url: string;
  pid(): number | undefined;
  /** When the current process started (ms, epoch). */
  startedAt(): number;
  /** Whether the current process holds an ingest lease (of any partition), by its last lease messages. */
  holdsLease(): boolean;
  /** How many ingest leases (partitions) the current process holds. */
  leasesHeld(): number;
  running(): boolean;
  start(): Promise<void>;
  signal(signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT'): void;
  /** Resolves once the current process exited (at once when none runs). */
  exited(): Promise<void>;
  /** SIGTERM, SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** Resident set size of the current process in bytes, from /proc (undefined when none runs). */
  rss(): number | undefined;
  /** The last lines the current process wrote (for failure reports). */
  tail(): string;
}

export async function hubSlot(slot: number, env: HubEnvironment): Promise<HubSlot> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let started = 0;
  /** The lease keys the current process logged as acquired and not lost since. */
  const held = new Set<string>();
  let tail = '';
  const args = [
    `--Http:Port=${port}`,
    '--Http:Host=127.0.0.1',
    `--Hub:InstanceId=soak-h${slot}`,
    `--Hub:Name=${SOAK.hubName}`,
    `--Hub:AccessKey=${SOAK.accessKey}`,
    `--Auth:Jwt:Secret=${SOAK.jwt.secret}`,
    `--Auth:Jwt:Issuer=${SOAK.jwt.issuer}`,
    `--Auth:Jwt:Audience=${SOAK.jwt.audience}`,
    `--ConnectionStrings:mqtt=${env.mqttUrl}`,
    `--ConnectionStrings:redis=${env.redisUrl}`,
    `--ConnectionStrings:postgres=${env.postgresUrl}`,
    ...(env.rabbitMqUrl ? [`--ConnectionStrings:rabbitmq=${env.rabbitMqUrl}`, `--Queue:Name=${env.queueName}`] : []),
    '--History:Enabled=true',
    `--Cluster:IngestLeaseSeconds=${SOAK.leaseSeconds}`,
    `--Cluster:IngestPartitions=${env.partitions}`,
    `--Throttle:MaxPerSecondPerDevice=${env.throttlePerSecond}`,
    '--Simulator:Devices=0',
    `--Storage:Path=${join(env.scratch, `firmware-h${slot}`)}`,
    // Hundreds of subscribers of two tenants connect from one address at once, and again after
    // every fault: the per-client caps would refuse them (the soak tests recovery, not the caps).
    '--Http:WebSocketUpgradesPerIpPerSecond=100000',
    '--Http:WebSocketUpgradeBurstPerIp=100000',
    '--Http:MaxPendingUpgrades=1000000',
    '--Hub:MaxConnectionsPerUser=1000000',
    '--Hub:MaxConnectionsPerTenant=1000000',
  ];
  const self: HubSlot = {
    slot,
    port,
    url,
    pid: () => child?.pid,
    startedAt: () => started,
    holdsLease: () => held.size > 0 && self.running(),
    leasesHeld: () => (self.running() ? held.size : 0),
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async start() {
      const proc = spawn(
        process.execPath,
        [...(process.env.SOAK_HUB_NODE_ARGS ?? '').split(' ').filter(Boolean), MAIN, ...args],
        {
          env: { ...process.env, HUB_ENVIRONMENT: 'Production' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child = proc;
      started = Date.now();
      held.clear();
      let gone = false;
      exited = new Promise((resolve) => proc.once('exit', () => ((gone = true), resolve())));
      // SOAK_LOGS=<dir>: every hub process's output kept, one file per instance, for a finding's evidence.
      const keep = process.env.SOAK_LOGS
        ? createWriteStream(join(process.env.SOAK_LOGS, `h${slot}.log`), { flags: 'a' })
        : undefined;
      keep?.write(`---- h${slot} pid ${proc.pid} started ${new Date(started).toISOString()}\n`);
      proc.stdout!.on('data', (chunk: Buffer) => keep?.write(chunk));
      proc.stderr!.on('data', (chunk: Buffer) => keep?.write(chunk));
      proc.once('exit', (code, signal) => keep?.end(`---- exited ${code ?? signal}\n`));
      let partial = '';
      const onOutput = (chunk: Buffer) => {
        const text = partial + chunk.toString();
        const lines = text.split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          // JSON log lines: only the lease changes matter here, each naming its lease's key.
          const key = /"key":"([^"]*)"/.exec(line)?.[1] ?? '';
          if (line.includes('ingest lease acquired')) held.add(key);
          else if (line.includes('ingest lease lost')) held.delete(key);
        }
        tail = (tail + text).slice(-6000);
      };
      proc.stdout!.on('data', onOutput);
      proc.stderr!.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-6000)));
      await waitForPort(port, `hub h${slot}`, 60_000, () => gone).catch((err: Error) => {
        throw new Error(`${err.message}:\n${tail}`);
      });
    },
    signal(signal) {
      const pid = child?.pid;
      if (pid !== undefined && self.running()) process.kill(pid, signal);
    },
    exited: () => exited,
    async stop() {
      if (!self.running()) return;
      self.signal('SIGCONT');
      child!.kill('SIGTERM');
      const kill = setTimeout(() => self.signal('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    },
    rss() {
      const pid = child?.pid;
      if (pid === undefined || !self.running()) return undefined;
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) * 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    tail: () => tail,
  };
  return self;
}
