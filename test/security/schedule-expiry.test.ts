import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../src/security/principal.js';
import { scheduleExpiry } from '../../src/security/schedule-expiry.js';

const user = (expiresAt?: number): Principal => ({ sub: 'alice', tenantId: 'acme', roles: [], scheme: 'bearer', ...(expiresAt === undefined ? {} : { expiresAt }) });

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(1_760_000_000_000);
});
afterEach(() => vi.useRealTimers());

describe('scheduleExpiry', () => {
  it('fires once, at expiry and not before', () => {
    const onExpire = vi.fn();
    scheduleExpiry(user(Date.now() + 60_000), onExpire);
    vi.advanceTimersByTime(59_999);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onExpire).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(3_600_000);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('cancel prevents it', () => {
    const onExpire = vi.fn();
    const cancel = scheduleExpiry(user(Date.now() + 1000), onExpire);
    cancel();
    cancel();
    vi.advanceTimersByTime(10_000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('an already expired credential fires on the next macrotask, after the caller got cancel', () => {
    const onExpire = vi.fn();
    scheduleExpiry(user(Date.now() - 5), onExpire);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('a credential without expiry never fires', () => {
    const onExpire = vi.fn();
    scheduleExpiry(user(), onExpire)();
    vi.advanceTimersByTime(365 * 24 * 3_600_000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('waits beyond the 24.8-day setTimeout limit instead of firing at once', () => {
    const onExpire = vi.fn();
    const day = 24 * 3_600_000;
    const spy = vi.spyOn(globalThis, 'setTimeout');
    scheduleExpiry(user(Date.now() + 60 * day), onExpire);
    expect(Math.max(...spy.mock.calls.map((c) => c[1] ?? 0))).toBeLessThanOrEqual(2 ** 31 - 1);
    vi.advanceTimersByTime(30 * day);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30 * day - 1);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onExpire).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  it('does not fire early when the timer wakes before the clock reaches expiry', () => {
    const onExpire = vi.fn();
    let clock = 0;
    scheduleExpiry(user(1000), onExpire, () => clock);
    clock = 990; // the wall clock lags the timer
    vi.advanceTimersByTime(1000);
    expect(onExpire).not.toHaveBeenCalled();
    clock = 1000;
    vi.advanceTimersByTime(10);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });
});
