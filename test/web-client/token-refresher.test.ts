import { beforeEach, describe, expect, it } from 'vitest';
import { TokenRefresher, type RefreshTimers } from '../../web-client/src/auth/token-refresher';

const jwt = (expSeconds: number) => `h.${Buffer.from(JSON.stringify({ exp: expSeconds })).toString('base64url')}.s`;

/** Time moves only through `advance`; due timers fire in order, and their async work settles in between. */
class FakeTimers implements RefreshTimers {
  time = 1_760_000_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;

  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  get pending(): number {
    return this.timers.length;
  }
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = until;
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

let timers: FakeTimers;
beforeEach(() => {
  timers = new FakeTimers();
});

const sec = (ms: number) => Math.floor(ms / 1000);

describe('TokenRefresher', () => {
  it('fetches a fresh token a minute before expiry, applies it, and schedules the next refresh from the new expiry', async () => {
    const applied: string[] = [];
    let issued = 0;
    const refresher = new TokenRefresher({
      timers,
      fetchToken: async () => jwt(sec(timers.now()) + 900 + issued++),
      apply: async (token) => {
        applied.push(token);
        return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp * 1000;
      },
    });
    const expiresAt = timers.now() + 900_000;
    refresher.start(expiresAt);

    await timers.advance(900_000 - 60_001);
    expect(applied).toHaveLength(0);
    await timers.advance(1);
    expect(applied).toHaveLength(1);
    // The next one comes a minute before the new expiry, not before.
    await timers.advance(900_000 - 60_000 - 1_000);
    expect(applied).toHaveLength(1);
    await timers.advance(2_000);
    expect(applied).toHaveLength(2);
    refresher.stop();
    expect(timers.pending).toBe(0);
  });

  it('applies nothing when the source has no later token (a pasted token), and stops', async () => {
    const expiresAt = timers.now() + 300_000;
    let applied = 0;
    const refresher = new TokenRefresher({
      timers,
      fetchToken: async () => jwt(sec(expiresAt)),
      apply: async () => ++applied,
    });
    refresher.start(expiresAt);
    await timers.advance(300_000);
    expect(applied).toBe(0);
    expect(timers.pending).toBe(0);
  });

  it('retries a refused or failed refresh until the session ends, then gives up', async () => {
    const expiresAt = timers.now() + 300_000;
    let attempts = 0;
    const refresher = new TokenRefresher({
      timers,
      retryMs: 10_000,
      fetchToken: async () => jwt(sec(timers.now()) + 900),
      apply: async () => {
        attempts++;
        throw new Error('HUB_ERR_AUTH_INVALID_TOKEN');
      },
    });
    refresher.start(expiresAt);
    await timers.advance(240_000);
    expect(attempts).toBe(1);
    await timers.advance(10_000);
    expect(attempts).toBe(2);
    await timers.advance(60_000);
    // 240 s, then every 10 s while more than 10 s remain: 250, 260, 270, 280, 290.
    expect(attempts).toBe(6);
    expect(timers.pending).toBe(0);
  });

  it('recovers after a failed attempt: the next success reschedules from the new expiry', async () => {
    const expiresAt = timers.now() + 300_000;
    let attempts = 0;
    let newExp = 0;
    const refresher = new TokenRefresher({
      timers,
      fetchToken: async () => {
        if (attempts++ === 0) throw new Error('network');
        return jwt(sec(timers.now()) + 900);
      },
      apply: async (token) =>
        (newExp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp * 1000),
    });
    refresher.start(expiresAt);
    await timers.advance(250_000);
    expect(attempts).toBe(2);
    expect(newExp).toBeGreaterThan(expiresAt);
    expect(timers.pending).toBe(1);
  });

  it('refreshes a short-lived token half-way, never in a tight loop', async () => {
    let fetched = 0;
    const refresher = new TokenRefresher({
      timers,
      fetchToken: async () => {
        fetched++;
        return jwt(sec(timers.now()) + 60);
      },
      apply: async () => timers.now() + 60_000,
    });
    refresher.start(timers.now() + 60_000);
    await timers.advance(29_999);
    expect(fetched).toBe(0);
    await timers.advance(1);
    expect(fetched).toBe(1);
    await timers.advance(10_000);
    expect(fetched).toBe(1);
  });

  it('stop cancels a scheduled refresh and discards one in flight', async () => {
    let release: (token: string) => void = () => undefined;
    let applied = 0;
    const refresher = new TokenRefresher({
      timers,
      fetchToken: () => new Promise<string>((resolve) => (release = resolve)),
      apply: async () => ++applied,
    });
    refresher.start(timers.now() + 300_000);
    await timers.advance(240_000);
    refresher.stop();
    release(jwt(sec(timers.now()) + 900));
    await timers.advance(1_000);
    expect(applied).toBe(0);
    expect(timers.pending).toBe(0);

    refresher.start(timers.now() + 300_000);
    refresher.stop();
    await timers.advance(300_000);
    expect(applied).toBe(0);
  });
});
