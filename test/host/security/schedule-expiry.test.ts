import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../src/host/security/principal.js';
import { scheduleExpiry } from '../../../src/host/security/schedule-expiry.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';

const user = (expiresAt?: number): Principal => ({
  sub: 'alice',
  tenantId: 'acme',
  roles: [],
  scheme: 'bearer',
  ...(expiresAt === undefined ? {} : { expiresAt }),
});

let clock: ManualClock;
beforeEach(() => {
  clock = new ManualClock(1_760_000_000_000);
});

describe('scheduleExpiry', () => {
  it('fires once, at expiry and not before', () => {
    const onExpire = vi.fn();
    scheduleExpiry(user(clock.now() + 60_000), onExpire, clock);
    clock.advance(59_999);
    expect(onExpire).not.toHaveBeenCalled();
    clock.advance(1);
    expect(onExpire).toHaveBeenCalledTimes(1);
    clock.advance(3_600_000);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('cancel prevents it', () => {
    const onExpire = vi.fn();
    const cancel = scheduleExpiry(user(clock.now() + 1000), onExpire, clock);
    cancel();
    cancel();
    clock.advance(10_000);
    expect(onExpire).not.toHaveBeenCalled();
    expect(clock.activeTimers).toBe(0);
  });

  it('an already expired credential fires on the next timer turn, after the caller got cancel', () => {
    const onExpire = vi.fn();
    scheduleExpiry(user(clock.now() - 5), onExpire, clock);
    expect(onExpire).not.toHaveBeenCalled();
    clock.advance(0);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('a credential without expiry never fires', () => {
    const onExpire = vi.fn();
    scheduleExpiry(user(), onExpire, clock)();
    clock.advance(365 * 24 * 3_600_000);
    expect(onExpire).not.toHaveBeenCalled();
    expect(clock.activeTimers).toBe(0);
  });

  it('waits beyond the 24.8-day setTimeout limit instead of firing at once', () => {
    const onExpire = vi.fn();
    const day = 24 * 3_600_000;
    scheduleExpiry(user(clock.now() + 60 * day), onExpire, clock);
    clock.advance(30 * day);
    expect(onExpire).not.toHaveBeenCalled();
    clock.advance(30 * day - 1);
    expect(onExpire).not.toHaveBeenCalled();
    clock.advance(1);
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(clock.longestDelay).toBeLessThanOrEqual(2 ** 31 - 1);
  });

  it('does not fire early when the timer wakes before the wall clock reaches expiry', () => {
    const onExpire = vi.fn();
    const expiresAt = clock.now() + 1000;
    scheduleExpiry(user(expiresAt), onExpire, clock);
    clock.advance(1000);
    expect(onExpire).toHaveBeenCalledTimes(1);

    const late = vi.fn();
    const later = clock.now() + 1000;
    scheduleExpiry(user(later), late, clock);
    // The wall clock lags the timer by 10 ms: the timer wakes, sees 10 ms left, and waits again.
    clock.setWallTime(clock.now() - 10);
    clock.advance(1000);
    expect(late).not.toHaveBeenCalled();
    clock.advance(10);
    expect(late).toHaveBeenCalledTimes(1);
  });
});
