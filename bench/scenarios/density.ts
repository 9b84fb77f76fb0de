import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { withChildren, type BenchChild } from '../harness/child-process.js';
import { clockOffset } from '../harness/clock.js';
import { Histogram, type LatencySummary } from '../harness/histogram.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import type { SubscriberKind } from '../harness/bench-config.js';
import { publisherCredentials, type Broker } from './fanout.js';
import { watchReadiness } from '../soak/readiness.js';
import { serverExecArgv, TARGETS, type Target } from './targets.js';

const run = promisify(execFile);

/** Who holds the connections: the hub (half socket.io, half Web PubSub) or an anchor. */
export type DensityTarget = 'hub' | 'ws-frame' | 'uws';

export interface DensityResult {
  target: DensityTarget;
  label: string;
  /** Connections asked for, and held once every client process was done. */
  asked: number;
  held: number;
  /** Subscribed connections per second over the whole connect phase. */
  connectPerSecond?: number;
  /** Growth per connection after GC, bytes. */
  rssPerConnection?: number;
  heapExternalPerConnection?: number;
  /** One reading's arrival at each member of the big group (ms), over `readings` readings. */
  latency?: LatencySummary;
  readings?: number;
  /** Members of the big group the readings reached (on average per reading). */
  hotMembers?: number;
  /** /health/ready polls (every second, 2 s to answer) that did not answer 200 during the run (the hub only). */
  notReady?: number;
  readyPolls?: number;
  /** What stopped it short of `asked`, or why it could not run. */
  error?: string;
}

type Memory = NodeJS.MemoryUsage & { gc: boolean };
type Report = { received: number; closed: number; histogram: { buckets: [number, number][]; max: number } };

/** Enough descriptors for every connection a process holds, and then some (root may raise the hard limit). */
const NOFILE = 1_048_576;

/**
 * Connection density: `opts.densityConnections` idle subscribers held by one server (or as many as
 * its descriptor limit allows when the bench may not raise it: the row says so), from
 * `opts.densityProcesses` client processes, each on a loopback source address of its own
 * (127.0.0.1 to one port leaves ~28k ephemeral ports per source address). The first
 * `opts.densityHot` subscribers (spread evenly over the processes) share one device group; the
 * rest are in groups of about 100. Measured: the connect rate, RSS and heap+external per connection
 * after GC, and, once all are in, the time from a reading's publication to its arrival at every
 * member of the big group. For the hub, every other client process speaks socket.io, the others Web
 * PubSub, and `/health/ready` is polled every second from start to end.
 */
export async function runDensity(opts: BenchOptions, broker: Broker, target: DensityTarget): Promise<DensityResult> {
  const base: Target = target === 'hub' ? TARGETS['hub-wps'] : TARGETS[target];
  const label = target === 'hub' ? 'hub (half socket.io, half Web PubSub)' : base.label;
  const asked = opts.densityConnections;
  const result: DensityResult = { target, label, asked, held: 0 };
  const processes = opts.densityProcesses;
  try {
    await withChildren(async (start) => {
      const serverArgs =
        target === 'hub'
          ? { ...base.args(broker.url), extraArgs: [`--Http:MaxConnections=${NOFILE}`] }
          : base.args(broker.url);
      const server = await start(base.process, {
        args: [JSON.stringify(serverArgs)],
        // The heap a hub needs for 100k connections is above V8's default limit on some machines:
        // the limit is not what this scenario measures.
        execArgv: ['--expose-gc', '--max-old-space-size=8192', ...serverExecArgv()],
      });
      const raised = await raiseFileLimit(server);
      // Without the right to raise it, the server's hard limit decides how many it can hold: the
      // run goes as far as that (leaving room for its other descriptors) and says what stopped it.
      const limit = raised ? NOFILE : fileLimitOf(server.pid);
      const reachable = Math.min(asked, limit - 1000);
      const url = server.ready.url as string;
      const readiness = target === 'hub' ? watchReadiness([{ url }], 1000) : undefined;
      try {
        const kinds: SubscriberKind[] =
          target === 'hub' ? Array.from({ length: processes }, (_, p) => (p % 2 === 0 ? 'hub-sio' : 'wps')) : ['ws'];
        // Compiled-on-first-use code is not charged to the connections.
        const warm = await start('subscribers', {
          args: [JSON.stringify({ kind: kinds[0], url, n: 20, groups: 10 })],
        });
        await warm.request('connect');
        if (target === 'hub' && kinds[1]) {
          const warm2 = await start('subscribers', {
            args: [JSON.stringify({ kind: kinds[1], url, n: 20, groups: 10 })],
          });
          await warm2.request('connect');
          await warm2.stop();
        }
        await warm.stop();
        await sleep(500);
        const before = await server.request<Memory>('memory', undefined, 120_000);

        const per = Math.ceil(reachable / processes);
        const hotPer = Math.ceil(Math.min(opts.densityHot, reachable / 2) / processes);
        const groups = 1 + Math.max(1, Math.ceil((reachable - hotPer * processes) / 100));
        const clients: BenchChild[] = [];
        for (let p = 0; p < processes; p++) {
          const n = Math.min(per, reachable - p * per);
          if (n <= 0) break;
          const client = await start('subscribers', {
            args: [
              JSON.stringify({
                kind: kinds[p % kinds.length],
                url,
                n,
                groups,
                hot: Math.min(hotPer, n),
                localAddress: `127.0.0.${10 + p}`,
              }),
            ],
            execArgv: ['--max-old-space-size=4096'],
          });
          if (raised) await raiseFileLimit(client);
          clients.push(client);
        }
        const t0 = performance.now();
        const connects = await Promise.all(
          clients.map((c) =>
            c.request<{ connected: number; failed: number; error?: string }>(
              'connect',
              { concurrency: 100 },
              30 * 60_000,
            ),
          ),
        );
        const seconds = (performance.now() - t0) / 1000;
        result.held = connects.reduce((n, c) => n + c.connected, 0);
        result.connectPerSecond = result.held / seconds;
        const failed = connects.find((c) => c.failed > 0);
        const stops: string[] = [];
        if (reachable < asked) stops.push(`the server's descriptor limit, ${limit} (hard; not raised: ${raisedNote})`);
        if (failed)
          stops.push(
            `${connects.reduce((n, c) => n + c.failed, 0)} of ${reachable} did not subscribe (first: ${failed.error})`,
          );
        if (stops.length > 0) result.error = stops.join('; ');

        await sleep(2000);
        const after = await server.request<Memory>('memory', undefined, 300_000);
        if (result.held > 0) {
          result.rssPerConnection = (after.rss - before.rss) / result.held;
          result.heapExternalPerConnection =
            (after.heapUsed + after.external - before.heapUsed - before.external) / result.held;
        }

        // One reading at a time to the big group's device, each after the last one arrived everywhere.
        const pub = await start('publisher', {
          args: [JSON.stringify({ brokerUrl: server.ready.brokerUrl, devices: 1, ...publisherCredentials(broker) })],
        });
        const offsets = await Promise.all(clients.map((c) => clockOffset(c)));
        const p = await clockOffset(pub);
        await Promise.all(
          clients.map((c, i) => c.request('reset', { correctionMs: offsets[i]!.offsetMs - p.offsetMs })),
        );
        const hotHeld = Math.min(hotPer * processes, result.held);
        const readings = opts.quick ? 3 : 20;
        let received = 0;
        for (let r = 0; r < readings; r++) {
          await pub.request('once');
          // Until every member has it, or nothing more arrived for a second (a member that failed
          // to subscribe never will).
          const deadline = Date.now() + 10_000;
          let last = received;
          let stillSince = Date.now();
          while (Date.now() < deadline) {
            const reports = await Promise.all(clients.map((c) => c.request<Report>('report')));
            received = reports.reduce((n, x) => n + x.received, 0);
            if (received >= hotHeld * (r + 1)) break;
            if (received !== last) [last, stillSince] = [received, Date.now()];
            else if (Date.now() - stillSince > 1000) break;
            await sleep(50);
          }
        }
        const reports = await Promise.all(clients.map((c) => c.request<Report>('report')));
        const all = new Histogram();
        for (const x of reports) all.merge(x.histogram);
        result.latency = all.summary();
        result.readings = readings;
        result.hotMembers = Math.round(all.summary().count / readings);
      } finally {
        if (readiness) {
          await readiness.stop();
          const polls = readiness.samples[0]!;
          [result.readyPolls, result.notReady] = [polls.length, polls.filter((p) => !p.ok).length];
        }
      }
    });
  } catch (err) {
    result.error = (err as Error).message.split('\n')[0];
  }
  return result;
}

let raisedNote = '';

/** `prlimit --nofile` on a running process: the bench raises its own processes' descriptor limits. */
async function raiseFileLimit(child: BenchChild): Promise<boolean> {
  try {
    await run('prlimit', ['--pid', String(child.pid), `--nofile=${NOFILE}:${NOFILE}`]);
    return true;
  } catch (err) {
    const said = String((err as { stderr?: string }).stderr ?? '').trim();
    raisedNote = said.startsWith('prlimit:') ? said : `prlimit: ${said || (err as Error).message.split('\n')[0]}`;
    return false;
  }
}

/** The hard RLIMIT_NOFILE of a process (Linux), from /proc; a generous guess elsewhere. */
function fileLimitOf(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const hard = Number(line?.trim().split(/\s+/)[4]);
    return Number.isFinite(hard) ? hard : NOFILE;
  } catch {
    return NOFILE;
  }
}
