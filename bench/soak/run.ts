import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import { ExitCode } from '../../src/host/command-line.js';
import { startChild, type BenchChild } from '../harness/child-process.js';
import { portOpen } from '../harness/port-open.js';
import type { DeviceRecord } from '../processes/soak-fleet.js';
import type { FollowRecord, SubscriberSpec } from '../processes/soak-subscribers.js';
import { followedDevices, messageId, SOAK, soakDevice } from './config.js';
import { inject, type Cluster, type DoneFault } from './faults.js';
import { hubSlot, type HubSlot } from './hubs.js';
import { type Invariant, soakOptions } from './options.js';
import { readinessCheck, faultTable, printReport, type FaultRow } from './report.js';
import { recoverySeconds, watchReadiness } from './readiness.js';
import { FAULT_INTERVAL_SECONDS, faultSchedule } from './schedule.js';
import { privateMosquitto, privatePostgres, privateRedis, scratchDirectory } from './services.js';
import { cuttableProxy, type CuttableProxy } from './tcp-proxy.js';
import { lookUpHistory } from './history-lookup.js';
import {
  exactnessCheck,
  findingsByFault,
  type Finding,
  inFlight,
  qos0Summary,
  rssCheck,
  tenantCheck,
  type RssSample,
  type Check,
  withoutThrottled,
} from './verdict.js';

const RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';
const MIGRATE = fileURLToPath(new URL('../../src/tools/migrate-cli.js', import.meta.url));
/** Seconds of traffic before the soak's clock starts (the first fault, the memory thirds). */
const WARMUP_SECONDS = 60;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(0);
/** Who ingests now: `lease h2`, or with partitions the count each instance holds (`leases h0:1 h1:1 h2:1`). */
const leases = (slots: readonly HubSlot[]) =>
  slots.some((s) => s.leasesHeld() > 1) || slots.filter((s) => s.holdsLease()).length > 1
    ? `leases ${slots.map((s) => `h${s.slot}:${s.leasesHeld()}`).join(' ')}`
    : `lease ${slots.find((s) => s.holdsLease()) ? `h${slots.find((s) => s.holdsLease())!.slot}` : '–'}`;

/** `npm run soak`: see options.ts and README.md. */
const opts = soakOptions();
const schedule = faultSchedule(opts.seed, opts.minutes, { hubs: opts.hubs, proxied: 2 });
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
console.log(
  `telemetry-hub soak: ${opts.minutes} min, seed ${opts.seed}, ${opts.hubs} hubs, ${opts.devices} devices at ${opts.rate}/s, ${opts.subscribers} subscribers`,
);
console.log(
  `machine: ${machine}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; node ${process.version}`,
);
console.log(`fault schedule (seed ${opts.seed}; npm run soak -- --seed ${opts.seed} repeats it):`);
for (const f of schedule)
  console.log(
    `  ${String(f.at).padStart(4)} s  ${f.kind}${f.kind === 'kill-hub' ? ` h${f.target}` : f.kind === 'cut-subscriber' ? ` proxied subscriber ${f.target}` : ''}`,
  );

const scratch = scratchDirectory();
// A soak cut short (Ctrl-C, CI's timeout) still leaves no process behind: the bench children die
// with their channel, and what this file started is killed here by PID.
const killOnExit: (() => void)[] = [];
process.on('exit', () => {
  for (const kill of killOnExit) {
    try {
      kill();
    } catch {
      // gone already
    }
  }
  scratch.remove();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const children: BenchChild[] = [];
const slots: HubSlot[] = [];
const proxies: CuttableProxy[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
let exitCode: number = ExitCode.failure;

try {
  for (const command of ['redis-server', 'mosquitto']) {
    if (spawnSync(command, ['-h'], { stdio: 'ignore' }).error) throw new Error(`${command} is not installed`);
  }
  const rabbitMqUrl = (await portOpen(5672)) ? RABBITMQ_URL : undefined;
  if (!rabbitMqUrl) console.log('RabbitMQ: not reachable at 127.0.0.1:5672; the hubs use their in-process queue');
  const queueName = `soak-${process.pid}.orders`;

  const redis = await privateRedis();
  const broker = await privateMosquitto(scratch.path);
  const postgres = await privatePostgres(scratch.path);
  cleanups.push(
    () => redis.stop('SIGKILL'),
    () => broker.stop('SIGKILL'),
    () => postgres.stop(),
  );
  killOnExit.push(
    () => redis.kill(),
    () => broker.kill(),
    () => postgres.stopNow(),
  );
  await Promise.all([redis.start(), broker.start(), postgres.start()]);
  const migrated = spawnSync(process.execPath, [MIGRATE, `--ConnectionStrings:postgres=${postgres.url}`], {
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`migrations failed: ${migrated.stderr}`);
  console.log(
    `services: redis :${redis.port}, mosquitto :${broker.port}, postgresql :${postgres.port}${rabbitMqUrl ? ', rabbitmq :5672 (shared)' : ''}`,
  );

  // The throttle well above the devices' rate: conflation must drop nothing the verdict counts.
  const throttlePerSecond = 1000;
  const env = {
    mqttUrl: `mqtt://127.0.0.1:${broker.port}`,
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    postgresUrl: postgres.url,
    rabbitMqUrl,
    queueName,
    throttlePerSecond,
    partitions: opts.partitions,
    scratch: scratch.path,
  };
  // Run after the hubs stopped (cleanups run last first).
  if (rabbitMqUrl)
    cleanups.push(async () => {
      // The queues the hubs declared on the shared broker go with the run.
      const connection = await amqp.connect(rabbitMqUrl);
      const channel = await connection.createChannel();
      for (const q of [queueName, `${queueName}.dead`]) await channel.deleteQueue(q).catch(() => undefined);
      await connection.close().catch(() => undefined);
    });
  for (let i = 0; i < opts.hubs; i++) slots.push(await hubSlot(i, env));
  for (const s of slots) killOnExit.push(() => s.signal('SIGKILL'));
  cleanups.push(async () => {
    await Promise.all(slots.map((s) => s.stop()));
  });
  await Promise.all(slots.map((s) => s.start()));
  const readiness = watchReadiness(slots);
  cleanups.push(() => readiness.stop());
  const deadline = Date.now() + 60_000;
  while (!readiness.latest().every(Boolean) || !slots.some((s) => s.holdsLease())) {
    if (Date.now() > deadline)
      throw new Error(`the hubs were not ready within 60 s:\n${slots.map((s) => s.tail()).join('\n')}`);
    await sleep(250);
  }
  console.log(
    `hubs: ${slots.map((s) => `h${s.slot} :${s.port}`).join(', ')}; ${leases(slots)}; ${opts.partitions > 1 ? `${opts.partitions} ingest partitions; ` : ''}throttle ${throttlePerSecond}/s per device`,
  );

  // Subscribers: the first half socket.io, the second half Web PubSub; the first of each half through a cuttable proxy.
  const specs: SubscriberSpec[] = [];
  const half = Math.ceil(opts.subscribers / 2);
  for (let s = 0; s < opts.subscribers; s++) {
    const home = s % opts.hubs;
    const follows = followedDevices(s, opts.devices).map((index) => ({ index, deviceId: soakDevice(index).deviceId }));
    let urls = Array.from({ length: opts.hubs }, (_, k) => slots[(home + k) % opts.hubs]!.url);
    if (s === 0 || s === half) {
      const proxy = await cuttableProxy(slots[home]!.port);
      proxies.push(proxy);
      urls = [`http://127.0.0.1:${proxy.port}`];
    }
    specs.push({ id: s, tenantId: SOAK.tenants[s % 2]!, follows, urls });
  }
  cleanups.push(async () => {
    for (const p of proxies) await p.close();
  });
  const groups = [
    { kind: 'socket.io', subscribers: specs.slice(0, half) },
    { kind: 'web-pubsub', subscribers: specs.slice(half) },
  ].filter((g) => g.subscribers.length > 0);
  const subscriberProcs: BenchChild[] = [];
  for (const g of groups) {
    const child = await startChild('soak-subscribers', { args: [JSON.stringify(g)] });
    children.push(child);
    subscriberProcs.push(child);
  }
  type SubStatus = { subscribed: number; connected: number; sessions: number; received: number };
  const subStatus = async () => {
    const all = await Promise.all(subscriberProcs.map((c) => c.request<SubStatus>('status')));
    return all.reduce((a, b) => ({
      subscribed: a.subscribed + b.subscribed,
      connected: a.connected + b.connected,
      sessions: a.sessions + b.sessions,
      received: a.received + b.received,
    }));
  };
  const t0sub = Date.now();
  await Promise.all(subscriberProcs.map((c) => c.request('start', undefined, 120_000)));
  for (;;) {
    const st = await subStatus();
    if (st.subscribed === opts.subscribers) break;
    if (Date.now() - t0sub > 180_000)
      throw new Error(`only ${st.subscribed} of ${opts.subscribers} subscribers subscribed within 180 s`);
    await sleep(500);
  }
  console.log(
    `subscribers: ${opts.subscribers} subscribed in ${seconds(Date.now() - t0sub)} s (${half} socket.io, ${opts.subscribers - half} Web PubSub reliable; 2 through a cuttable proxy)`,
  );

  const fleet = await startChild('soak-fleet', {
    args: [JSON.stringify({ brokerUrl: env.mqttUrl, devices: opts.devices, rate: opts.rate })],
  });
  children.push(fleet);
  await fleet.request('connect', undefined, 120_000);
  await fleet.request('start');
  // Traffic without faults first: the hubs' heaps grow while they warm up, which the memory thirds must not take for a leak.
  const warmupEnd = Date.now() + WARMUP_SECONDS * 1000;
  while (Date.now() < warmupEnd) {
    await sleep(5000);
    const fc = await fleet.request<{ sent: number; acked: number }>('counts');
    console.log(
      `warm-up ${seconds(WARMUP_SECONDS * 1000 - (warmupEnd - Date.now()))} s  sent ${fc.sent} acked ${fc.acked}`,
    );
  }
  const soakStart = Date.now();
  const soakEnd = soakStart + opts.minutes * 60_000;
  console.log(
    `fleet: ${opts.devices} devices publishing (${opts.devices / SOAK.qos0Every} at QoS 0); soak started ${new Date(soakStart).toISOString()}`,
  );

  // RSS of every instance every 2 s, with its process's start (a restarted hub's warm-up is left out).
  const rss: RssSample[][] = slots.map(() => []);
  const rssTimer = setInterval(() => {
    for (const s of slots) {
      const bytes = s.rss();
      if (bytes !== undefined)
        rss[s.slot]!.push({ at: Date.now(), bytes, processStartedAt: s.startedAt(), holder: s.holdsLease() });
    }
  }, 2000);
  cleanups.push(() => clearInterval(rssTimer));

  // One progress line every 5 s.
  let lastReceived = 0;
  let lastAt = Date.now();
  let current = 'none';
  type FleetCounts = { sent: number; acked: number; unacked: number; connected: number };
  const progress = setInterval(() => {
    void (async () => {
      try {
        const [st, fc] = await Promise.all([subStatus(), fleet.request<FleetCounts>('counts')]);
        const now = Date.now();
        const rate = ((st.received - lastReceived) / (now - lastAt)) * 1000;
        [lastReceived, lastAt] = [st.received, now];
        const ready = readiness
          .latest()
          .map((ok, i) => `h${i}${ok ? '✓' : '✗'}`)
          .join(' ');
        const mem = slots.map((s) => `${((s.rss() ?? 0) / 2 ** 20).toFixed(0)}`).join('/');
        console.log(
          `${seconds(now - soakStart).padStart(4)} s  sent ${fc.sent} acked ${fc.acked} (unacked ${fc.unacked}, devices up ${fc.connected})  delivered ${rate.toFixed(0)}/s  subscribers up ${st.connected}/${opts.subscribers}  ${ready}  ${leases(slots)}  RSS MB ${mem}  fault: ${current}`,
        );
      } catch (err) {
        console.log(`progress: ${(err as Error).message.split('\n')[0]}`);
      }
    })();
  }, 5000);
  cleanups.push(() => clearInterval(progress));

  const cluster: Cluster = { slots, redis, broker, postgres, proxies };
  const done: DoneFault[] = [];
  for (const planned of schedule) {
    const wait = soakStart + planned.at * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    current = `${planned.kind} (since ${seconds(Date.now() - soakStart)} s)`;
    console.log(
      `${seconds(Date.now() - soakStart).padStart(4)} s  FAULT ${planned.kind}${planned.kind === 'kill-hub' ? ` h${planned.target}` : ''}`,
    );
    const d = await inject(planned, cluster);
    done.push(d);
    current = `after ${planned.kind} (ended at ${seconds(d.endedAt - soakStart)} s)`;
  }
  const endWait = soakEnd - Date.now();
  if (endWait > 0) await sleep(endWait);

  // Drain: no new readings; every sent QoS 1 reading acknowledged, every subscriber connected, deliveries settled.
  await fleet.request('stop');
  const drainStart = Date.now();
  let settled = 0;
  let before = -1;
  for (;;) {
    const [st, fc] = await Promise.all([subStatus(), fleet.request<FleetCounts>('counts')]);
    settled = st.received === before && fc.unacked === 0 && st.connected === opts.subscribers ? settled + 1 : 0;
    before = st.received;
    if (settled >= 5) break;
    if (Date.now() - drainStart > 120_000) {
      console.log(
        `drain: not settled after 120 s (unacked ${fc.unacked}, subscribers up ${st.connected}); judging what arrived`,
      );
      break;
    }
    await sleep(1000);
  }
  const runEnd = Date.now();
  clearInterval(progress);
  clearInterval(rssTimer);
  await readiness.stop();

  const records = await fleet.request<DeviceRecord[]>('records', undefined, 120_000);
  const follows = (
    await Promise.all(subscriberProcs.map((c) => c.request<FollowRecord[]>('records', undefined, 120_000)))
  ).flat();
  type Problem = {
    subscriber: number;
    kind: string;
    sessions: number;
    refused: string[];
    truncated: number;
    foreign: number;
  };
  const problems = (await Promise.all(subscriberProcs.map((c) => c.request<Problem[]>('problems')))).flat();

  // A reading sent up to 0.5 s before a fault began was still in flight when it hit: it counts as that fault's.
  const faultAround = (at: number) => [...done].reverse().find((d) => d.startedAt - 500 <= at);
  const faultName = (at: number) => {
    const before = faultAround(at);
    return before
      ? `sent ${(Math.abs(at - before.startedAt) / 1000).toFixed(1)} s ${at >= before.startedAt ? 'after' : 'before'} fault ${done.indexOf(before) + 1} ${before.planned.kind} ${before.target}`
      : `sent ${((at - soakStart) / 1000).toFixed(1)} s into the soak, before any fault`;
  };
  const flights = inFlight(
    records,
    follows,
    done.map((d) => d.startedAt),
  );
  const rows: FaultRow[] = done.map((d, i) => ({
    fault: d,
    recovery: slots.map((s) =>
      recoverySeconds(readiness.samples[s.slot]!, d.startedAt, d.endedAt, done[i + 1]?.startedAt ?? runEnd),
    ),
    inFlight: flights[i]!,
  }));
  const counted = exactnessCheck(records, follows, faultName);
  const faultOf = (f: Finding) => {
    const at = records[f.device]!.sentAt[f.n - 1]!;
    const before = faultAround(at);
    return before ? `fault ${done.indexOf(before) + 1} ${before.planned.kind} ${before.target}` : 'before any fault';
  };
  const history = await lookUpHistory(postgres.url, counted.findings, 1000 / throttlePerSecond).catch((err: Error) => ({
    lines: [`history lookup failed: ${err.message}`],
    seqs: new Map<string, number[]>(),
    nextWithinInterval: new Set<string>(),
    spacing: new Map<string, { prevMs: number | null; nextMs: number | null }>(),
  }));
  const ms = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(2));
  const exactness = withoutThrottled(counted, (device, n) =>
    history.nextWithinInterval.has(messageId(soakDevice(device), n)),
  );
  exactness.examples.push(...findingsByFault(exactness.findings, faultOf), ...history.lines);
  if (process.env.SOAK_LOGS)
    writeFileSync(
      join(process.env.SOAK_LOGS, 'findings.txt'),
      counted.findings
        .map(
          (f) =>
            `${f.line}; history seq ${history.seqs.get(messageId(soakDevice(f.device), f.n))?.join(',') ?? '–'}, ms after the previous ${ms(history.spacing.get(messageId(soakDevice(f.device), f.n))?.prevMs)}, before the next ${ms(history.spacing.get(messageId(soakDevice(f.device), f.n))?.nextMs)}${exactness.throttled.includes(f) ? '; replaced by the throttle (not judged)' : ''}\n`,
        )
        .join(''),
    );
  const measured: [Invariant, Check][] = [
    ['exactness', exactness],
    [
      'tenants',
      tenantCheck(
        problems.reduce((n, p) => n + p.foreign, 0),
        problems.length,
      ),
    ],
    ['memory', rssCheck(rss, soakStart, soakEnd)],
    ['readiness', readinessCheck(rows)],
  ];
  const checks = measured.map(([id, check]) => ({ ...check, judged: opts.judge.includes(id) }));
  const sessions = problems.reduce((n, p) => n + p.sessions, 0);
  const truncated = problems.reduce((n, p) => n + p.truncated, 0);
  const refusals = problems.flatMap((p) => p.refused.map((r) => `${p.kind} subscriber ${p.subscriber}: ${r}`));
  const notes = [
    qos0Summary(records, follows),
    `subscriber sessions: ${sessions} (${sessions - opts.subscribers} reconnects); truncated catch-ups: ${truncated}; refused subscribes: ${refusals.length}${refusals.length ? ` (first: ${refusals[0]})` : ''}`,
    `readings sent: ${records.reduce((n, r) => n + r.sentAt.length, 0)}; drain ${seconds(runEnd - soakEnd)} s; faults every ${FAULT_INTERVAL_SECONDS} s; load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ];
  exitCode = printReport(faultTable(rows, soakStart, opts.hubs), checks, notes) ? ExitCode.ok : ExitCode.failure;
} catch (err) {
  console.error(`soak: ${(err as Error).stack ?? (err as Error).message}`);
  exitCode = ExitCode.failure;
} finally {
  for (const c of children) {
    await c.request('close', undefined, 10_000).catch(() => undefined);
    await c.stop();
  }
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (err) {
      console.error(`cleanup: ${(err as Error).message}`);
    }
  }
  scratch.remove();
}
process.exit(exitCode);
