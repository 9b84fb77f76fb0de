import type { DeviceRecord } from '../processes/soak-fleet.js';
import type { FollowRecord } from '../processes/soak-subscribers.js';
import { soakDevice } from './config.js';

/** One invariant of the verdict: whether it held, and what says so (or shows it broke). */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  examples: string[];
  /** False when `--judge` leaves it out: printed, but the exit code does not depend on it. */
  judged?: boolean;
}

const EXAMPLES_PER_KIND = 4;

/** "soak-a/dev-0003 #41" */
function readingName(device: number, n: number): string {
  const d = soakDevice(device);
  return `${d.tenantId}/${d.deviceId}/${n}`;
}

/** A reading the exactness check found wrong, for the report and the history lookup. */
export interface Finding {
  kind: 'missing' | 'duplicated' | 'out of order' | 'not acknowledged';
  device: number;
  n: number;
  line: string;
  /** Of a missing reading: how many of the device's followers received it. */
  receivedBy?: number;
  /** Of a missing reading: the device's next reading that some follower received, if any. */
  nextReceived?: number;
}

/**
 * Every subscriber got, of every QoS 1 device it follows, exactly the readings the broker
 * acknowledged to the device: each once, in seq order (gaps in seq allowed, repeats and reversals
 * not). `faultName` names the fault a wrong reading was sent after, for the report.
 */
export function exactnessCheck(
  fleet: readonly DeviceRecord[],
  follows: readonly FollowRecord[],
  faultName: (at: number) => string,
): Check & { findings: Finding[] } {
  let checked = 0;
  let expected = 0;
  const counts = { missing: 0, duplicated: 0, 'out of order': 0, 'not acknowledged': 0 };
  const findings: Finding[] = [];
  const find = (kind: Finding['kind'], device: number, n: number, line: string) => {
    counts[kind]++;
    findings.push({ kind, device, n, line });
  };
  // Per device, how many followers got each reading: one missed by all was lost before the fan-out.
  const followers = new Map<number, number>();
  const gotBy = new Map<number, Map<number, number>>();
  for (const f of follows) {
    followers.set(f.device, (followers.get(f.device) ?? 0) + 1);
    let got = gotBy.get(f.device);
    if (got === undefined) gotBy.set(f.device, (got = new Map()));
    for (const n of new Set(f.n)) got.set(n, (got.get(n) ?? 0) + 1);
  }
  for (const f of follows) {
    const device = fleet[f.device]!;
    if (device.qos !== 1) continue;
    checked++;
    const who = `${f.kind} subscriber ${f.subscriber}`;
    const when = (n: number) => faultName(device.sentAt[n - 1]!);
    const seen = new Map<number, number>();
    for (let i = 0; i < f.n.length; i++) {
      const n = f.n[i]!;
      seen.set(n, (seen.get(n) ?? 0) + 1);
      if (seen.get(n) === 2)
        find(
          'duplicated',
          f.device,
          n,
          `${who}: ${readingName(f.device, n)} received twice (seq ${f.seq[i]}; ${when(n)})`,
        );
      if (i > 0 && f.seq[i]! <= f.seq[i - 1]!)
        find(
          'out of order',
          f.device,
          n,
          `${who}: ${readingName(f.device, n)} seq ${f.seq[i]} after ${readingName(f.device, f.n[i - 1]!)} seq ${f.seq[i - 1]} (${when(n)})`,
        );
      if (!(device.ackedAt[n - 1]! > 0))
        find(
          'not acknowledged',
          f.device,
          n,
          `${who}: ${readingName(f.device, n)} received, never acknowledged to the device`,
        );
    }
    for (let n = 1; n <= device.ackedAt.length; n++) {
      if (!(device.ackedAt[n - 1]! > 0)) continue;
      expected++;
      if (!seen.has(n)) {
        const receivedBy = gotBy.get(f.device)?.get(n) ?? 0;
        find(
          'missing',
          f.device,
          n,
          `${who}: ${readingName(f.device, n)} acknowledged, never received (${when(n)}; ${receivedBy} of the device's ${followers.get(f.device)} followers got it)`,
        );
        const got = gotBy.get(f.device);
        let next = n + 1;
        while (next <= device.sentAt.length && !((got?.get(next) ?? 0) > 0)) next++;
        Object.assign(findings[findings.length - 1]!, {
          receivedBy,
          ...(next <= device.sentAt.length ? { nextReceived: next } : {}),
        });
      }
    }
  }
  const examples = examplesOf(findings);
  return {
    name: 'exactly the acknowledged QoS 1 readings, once, in seq order',
    ok: findings.length === 0,
    detail: `${checked} subscriber × device pairs, ${expected} readings expected: ${counts.missing} missing, ${counts.duplicated} duplicated, ${counts['out of order']} out of seq order, ${counts['not acknowledged']} never acknowledged`,
    examples,
    findings,
  };
}

/** Up to EXAMPLES_PER_KIND lines per kind of finding. */
function examplesOf(findings: readonly Finding[]): string[] {
  const kinds: Finding['kind'][] = ['missing', 'duplicated', 'out of order', 'not acknowledged'];
  return kinds.flatMap((kind) =>
    findings
      .filter((x) => x.kind === kind)
      .slice(0, EXAMPLES_PER_KIND)
      .map((x) => x.line),
  );
}

/**
 * Takes out of the exactness check the missing readings the throttle replaced by design: the
 * contract lets a device's newest reading win when two arrive within one throttle interval, and a
 * device's readings that waited out a fault (its own reconnect, a broker restart) can arrive back
 * to back however slowly it sends. Such a reading is counted only with all the evidence: no
 * follower received it, the history stored it (so the hub accepted it), the device's next stored
 * reading reached the hub within one interval after it (`conflatable`, from the history), and a
 * later reading, with only such readings between, reached the followers (the one that won).
 * Everything else stays a finding; the readings taken out are reported, never silently.
 */
export function withoutThrottled(
  check: Check & { findings: Finding[] },
  conflatable: (device: number, n: number) => boolean,
): Check & { findings: Finding[]; throttled: Finding[] } {
  // The reading that replaced it must have reached the followers, with every reading between the
  // two replaced the same way: a burst the throttle thinned, not a reading lost alone inside one.
  const replaced = (f: Finding) => {
    if (f.kind !== 'missing' || f.receivedBy !== 0 || f.nextReceived === undefined) return false;
    for (let k = f.n; k < f.nextReceived; k++) if (!conflatable(f.device, k)) return false;
    return true;
  };
  const throttled = check.findings.filter(replaced);
  if (throttled.length === 0) return { ...check, throttled };
  const findings = check.findings.filter((f) => !throttled.includes(f));
  const distinct = new Set(throttled.map((f) => readingName(f.device, f.n)));
  return {
    ...check,
    ok: findings.length === 0,
    detail: `${check.detail}; of the missing, ${throttled.length} (${distinct.size} distinct readings) replaced by the throttle by design, not judged`,
    examples: [
      ...examplesOf(findings),
      `replaced by the throttle (no follower got it; stored; the newer reading that replaced it reached the hub within one interval and the followers): ${[...distinct].slice(0, EXAMPLES_PER_KIND).join(', ')}`,
    ],
    findings,
    throttled,
  };
}

/** Which fault the wrong readings followed: counts per fault, so a pattern shows at a glance. */
export function findingsByFault(findings: readonly Finding[], faultOf: (f: Finding) => string): string[] {
  const byFault = new Map<string, Map<string, number>>();
  for (const f of findings) {
    const key = faultOf(f);
    let kinds = byFault.get(key);
    if (kinds === undefined) byFault.set(key, (kinds = new Map()));
    kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  }
  return [...byFault].map(
    ([fault, kinds]) => `${fault}: ${[...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ')}`,
  );
}

/** The QoS 0 devices: reported, never judged (the broker may drop them by design). */
export function qos0Summary(fleet: readonly DeviceRecord[], follows: readonly FollowRecord[]): string {
  let sent = 0;
  let got = 0;
  for (const f of follows) {
    const device = fleet[f.device]!;
    if (device.qos !== 0) continue;
    sent += device.sentAt.length;
    got += new Set(f.n).size;
  }
  return sent === 0
    ? 'QoS 0 devices: none followed'
    : `QoS 0 devices (not judged): ${got} of ${sent} readings reached their followers (${((got / sent) * 100).toFixed(2)} %)`;
}

/**
 * Readings sent before `at` that some follower received only after it: what the fault caught in
 * flight (normally a few ms of traffic; after a fault, what waited in the broker or the catch-up).
 */
export function inFlight(fleet: readonly DeviceRecord[], follows: readonly FollowRecord[], at: readonly number[]) {
  const caught = at.map(() => new Set<number>());
  for (const f of follows) {
    const sentAt = fleet[f.device]!.sentAt;
    for (let i = 0; i < f.n.length; i++) {
      const sent = sentAt[f.n[i]! - 1]!;
      const got = f.at[i]!;
      if (got - sent < 1) continue;
      for (let k = 0; k < at.length; k++) {
        if (sent <= at[k]! && got > at[k]!) caught[k]!.add(f.device * 1e7 + f.n[i]!);
      }
    }
  }
  return caught.map((s) => s.size);
}

/** RSS samples of one instance over the soak, with the start of the process each was taken from. */
export interface RssSample {
  at: number;
  bytes: number;
  processStartedAt: number;
  /** Whether the instance held the ingest lease: the ingester holds more (redelivery window, history queue). */
  holder: boolean;
}

/** Samples of a process younger than this are left out: a restarted hub is still filling its caches. */
export const RSS_WARMUP_MS = 30_000;

/**
 * Each instance's RSS floor (the minimum) in the soak's last third within 10 % of its first
 * third's, compared within one role: the lease moves between instances, and the ingester's floor
 * is higher than a standby's without anything leaking.
 */
export function rssCheck(samples: readonly RssSample[][], soakStart: number, soakEnd: number): Check {
  const third = (soakEnd - soakStart) / 3;
  const lines: string[] = [];
  let ok = true;
  const mb = (b: number | undefined) => (b === undefined ? 'n/a' : `${(b / 2 ** 20).toFixed(0)} MB`);
  samples.forEach((all, slot) => {
    const parts: string[] = [];
    for (const holder of [false, true]) {
      const warm = all.filter((s) => s.holder === holder && s.at - s.processStartedAt >= RSS_WARMUP_MS);
      const floor = (from: number, to: number) => {
        const inside = warm.filter((s) => s.at >= from && s.at < to).map((s) => s.bytes);
        return inside.length ? Math.min(...inside) : undefined;
      };
      const first = floor(soakStart, soakStart + third);
      const last = floor(soakEnd - third, soakEnd + 1);
      if (first === undefined && last === undefined) continue;
      if (first !== undefined && last !== undefined && last > first * 1.1) ok = false;
      const growth = first !== undefined && last !== undefined ? ` (${((last / first - 1) * 100).toFixed(1)} %)` : '';
      parts.push(`${holder ? 'ingester' : 'standby'} ${mb(first)} → ${mb(last)}${growth}`);
    }
    lines.push(`h${slot}: ${parts.join(', ') || 'n/a'}`);
  });
  return {
    name: "every hub's RSS floor in the last third within 10 % of the first third's (per role)",
    ok,
    detail: lines.join('; '),
    examples: [],
  };
}

/** Readings of another tenant: the subscribers count them as they arrive. */
export function tenantCheck(foreign: number, subscribers: number): Check {
  return {
    name: 'nothing of another tenant',
    ok: foreign === 0,
    detail: `${foreign} readings of another tenant over ${subscribers} subscribers`,
    examples: [],
  };
}
