import { describe, expect, it } from 'vitest';
import { LogThrottle } from '../../src/host/log-throttle.js';

describe('LogThrottle', () => {
  it('logs the first line of a message at once, holds back repeats within the interval and counts them in the next line', () => {
    const lines: [object, string][] = [];
    let now = 0;
    const throttle = new LogThrottle({ warn: (obj, msg) => lines.push([obj, msg]) }, 10_000, () => now);
    for (let i = 0; i < 1000; i++) throttle.warn({ i }, 'redis error');
    throttle.warn({}, 'other message');
    expect(lines).toEqual([
      [{ i: 0, suppressed: 0 }, 'redis error'],
      [{ suppressed: 0 }, 'other message'],
    ]);
    now = 10_000;
    throttle.warn({ i: 1000 }, 'redis error');
    expect(lines[2]).toEqual([{ i: 1000, suppressed: 999 }, 'redis error']);
    now = 25_000;
    throttle.warn({ i: 1001 }, 'redis error');
    expect(lines[3]).toEqual([{ i: 1001, suppressed: 0 }, 'redis error']);
  });

  it('throttles each key of one message on its own: a flood of one reason does not hide another', () => {
    const lines: [object, string][] = [];
    const now = 0;
    const throttle = new LogThrottle({ warn: (obj, msg) => lines.push([obj, msg]) }, 10_000, () => now);
    for (let i = 0; i < 100; i++) throttle.warn({ reason: 'bad_json' }, 'reading dropped', 'bad_json');
    throttle.warn({ reason: 'too_large' }, 'reading dropped', 'too_large');
    expect(lines).toEqual([
      [{ reason: 'bad_json', suppressed: 0 }, 'reading dropped'],
      [{ reason: 'too_large', suppressed: 0 }, 'reading dropped'],
    ]);
  });
});
