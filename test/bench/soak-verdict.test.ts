import { describe, expect, it } from 'vitest';
import type { DeviceRecord } from '../../bench/processes/soak-fleet.js';
import type { FollowRecord } from '../../bench/processes/soak-subscribers.js';
import { FAULT_KINDS, faultSchedule } from '../../bench/soak/schedule.js';
import { exactnessCheck, rssCheck } from '../../bench/soak/verdict.js';

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

  it('leaves out a reading the broker lost, and says so, but still fails one it delivered and a follower missed', () => {
    const lost = new Set(['soak-a/dev-0000/2']);
    const c = exactnessCheck(fleet, [follow([1, 4], [1, 250])], () => 'before any fault', lost);
    expect(c.ok).toBe(true);
    expect(c.detail).toContain('2 readings expected: 0 missing');
    expect(c.detail).toContain('1 acknowledged readings lost by the broker left out');
    const missed = exactnessCheck(fleet, [follow([1, 2], [1, 2])], () => 'before any fault', lost);
    expect(missed.findings.map((f) => [f.kind, f.n, f.gotBy])).toEqual([['missing', 4, 0]]);
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
