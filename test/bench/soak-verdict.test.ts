import { describe, expect, it } from 'vitest';
import type { DeviceRecord } from '../../bench/processes/soak-fleet.js';
import type { FollowRecord } from '../../bench/processes/soak-subscribers.js';
import { FAULT_KINDS, faultSchedule } from '../../bench/soak/schedule.js';
import { exactnessCheck, rssCheck, withoutThrottled } from '../../bench/soak/verdict.js';
import { recoverySeconds } from '../../bench/soak/readiness.js';

/**
 * The soak's schedule and verdict are plain functions: the same seed must give the same faults
 * (a failing run is repeated with its seed), and the verdict must catch a reading lost, repeated
 * or out of seq order while allowing seq gaps.
 */
describe('soak schedule', () => {
  it('the same seed gives the same faults; every kind comes up in each six', () => {
    const a = faultSchedule(42, 10, { hubs: 3, proxied: 2 });
    expect(faultSchedule(42, 10, { hubs: 3, proxied: 2 })).toEqual(a);
    expect(faultSchedule(43, 10, { hubs: 3, proxied: 2 })).not.toEqual(a);
    expect(a.map((f) => f.at)).toEqual(Array.from({ length: 19 }, (_, i) => 30 * (i + 1)));
    expect(new Set(a.slice(0, 6).map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
    expect(faultSchedule(1, 2, { hubs: 3, proxied: 2 })).toHaveLength(3);
  });
});

describe('soak verdict', () => {
  // Device 0 (QoS 1) sent readings 1–4, the broker acknowledged 1, 2 and 4.
  const fleet: DeviceRecord[] = [
    { index: 0, qos: 1, sentAt: [1000, 1500, 2000, 2500], ackedAt: [1001, 1501, 0, 2501] },
  ];
  const follow = (n: number[], seq: number[]): FollowRecord => ({
    subscriber: 7,
    kind: 'socket.io',
    device: 0,
    n,
    seq,
    at: n.map((_, i) => 3000 + i),
  });
  const check = (f: FollowRecord) => exactnessCheck(fleet, [f], () => 'before any fault');

  it('passes exactly the acknowledged readings in seq order, gaps in seq allowed', () => {
    const c = check(follow([1, 2, 4], [1, 2, 250]));
    expect(c.ok).toBe(true);
    expect(c.detail).toContain('3 readings expected: 0 missing');
  });

  it('fails a missing, a repeated, a reversed and an unacknowledged reading, naming each', () => {
    expect(check(follow([1, 4], [1, 250])).findings.map((f) => [f.kind, f.n])).toEqual([['missing', 2]]);
    expect(check(follow([1, 2, 2, 4], [1, 2, 2, 3])).findings.map((f) => f.kind)).toEqual([
      'duplicated',
      'out of order',
    ]);
    expect(check(follow([1, 4, 2], [1, 3, 2])).findings.map((f) => f.kind)).toEqual(['out of order']);
    const c = check(follow([1, 2, 3, 4], [1, 2, 3, 4]));
    expect(c.findings.map((f) => [f.kind, f.n])).toEqual([['not acknowledged', 3]]);
    expect(c.examples[0]).toContain('socket.io subscriber 7: soak-a/dev-0000/3');
  });

  it('takes out only a missing reading the throttle replaced by design, and says so', () => {
    // Two followers of device 0; reading 2 reached neither, reading 4 (the newer) reached one of them.
    const a = follow([1], [1]);
    const b = { ...follow([1, 4], [1, 3]), subscriber: 8 };
    const counted = exactnessCheck(fleet, [a, b], () => 'before any fault');
    expect(counted.findings.map((f) => f.n)).toEqual([2, 4, 2]);

    // The history says every reading had the device's next reading within one interval.
    const c = withoutThrottled(counted, () => true);
    expect(c.throttled.map((f) => f.n)).toEqual([2, 2]);
    // Reading 4 reached a follower, so the throttle did not replace it: still a finding, and named.
    expect(c.findings.map((f) => f.n)).toEqual([4]);
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('2 (1 distinct readings) replaced by the throttle by design, not judged');
    expect(c.examples[0]).toContain('soak-a/dev-0000/4');
    expect(c.examples.join('\n')).toContain('replaced by the throttle');

    // Without that evidence in the history, nothing is taken out; nor when a reading between it and
    // the one that reached the followers (3) was not replaced the same way.
    expect(withoutThrottled(counted, () => false).findings).toHaveLength(3);
    expect(withoutThrottled(counted, (_device, n) => n !== 3).throttled).toEqual([]);

    // Nor without a newer reading that reached the followers: nothing replaced it.
    const lastLost = exactnessCheck(fleet, [follow([1, 2], [1, 2])], () => 'x');
    expect(lastLost.findings.map((f) => f.n)).toEqual([4]);
    expect(withoutThrottled(lastLost, () => true).ok).toBe(false);

    // A run whose only missing readings were replaced by the throttle passes.
    const only = withoutThrottled(
      exactnessCheck(fleet, [b, { ...b, subscriber: 9 }], () => 'x'),
      () => true,
    );
    expect(only.throttled).toHaveLength(2);
    expect(only.ok).toBe(true);
  });

  it('compares RSS floors per role and leaves out a young process', () => {
    const sample = (at: number, mb: number, holder = false, processStartedAt = -60_000) => ({
      at,
      bytes: mb * 2 ** 20,
      processStartedAt,
      holder,
    });
    const steady = [sample(0, 100), sample(50_000, 150, true), sample(250_000, 105), sample(280_000, 160, true)];
    expect(rssCheck([steady], 0, 300_000).ok).toBe(true);
    expect(rssCheck([[...steady, sample(260_000, 200), sample(290_000, 200)]], 0, 300_000).ok).toBe(true);
    expect(rssCheck([[sample(0, 100), sample(250_000, 120)]], 0, 300_000).ok).toBe(false);
    // A process restarted 10 s before its sample is still warming up.
    expect(rssCheck([[sample(0, 100), sample(250_000, 120, false, 240_000)]], 0, 300_000).ok).toBe(true);
  });
});

describe('soak readiness', () => {
  it('counts a poll that timed out because of the next fault against that fault, not this one', () => {
    // Ready every 500 ms; the poll sent at 9.8 s timed out at 10.8 s, after the next fault (10 s) stopped the process.
    const samples = [0, 500, 1000, 9500].map((at) => ({ at, doneAt: at + 2, ok: true }));
    samples.push({ at: 9800, doneAt: 10_800, ok: false });
    expect(recoverySeconds(samples, 0, 0, 10_000)).toBe(0);
    expect(recoverySeconds([...samples, { at: 9900, doneAt: 9901, ok: false }], 0, 0, 10_000)).toBeUndefined();
  });
});
