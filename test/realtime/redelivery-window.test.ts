import { describe, expect, it } from 'vitest';
import { LocalRedeliveryWindow } from '../../src/realtime/redelivery-window.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';

describe('LocalRedeliveryWindow: the single hub recognises a reading sent again within the window', () => {
  it('knows an identity for at least the window, forgets it by twice the window', () => {
    const clock = new ManualClock(0);
    const window = new LocalRedeliveryWindow({ windowMs: 1000, clock });
    expect(window.seen('a')).toBe(false);
    expect(window.seen('a')).toBe(true);
    clock.advance(999);
    expect(window.seen('a')).toBe(true);
    expect(window.seen('b')).toBe(false);
    clock.advance(1000);
    expect(window.seen('a')).toBe(true);
    clock.advance(1001);
    expect(window.seen('c')).toBe(false);
    clock.advance(1001);
    expect(window.seen('d')).toBe(false);
    expect(window.seen('a')).toBe(false);
  });

  it('holds at most its bound: a burst beyond it shortens the window instead of growing memory', () => {
    const clock = new ManualClock(0);
    const window = new LocalRedeliveryWindow({ windowMs: 60_000, maxEntries: 3, clock });
    for (const id of ['1', '2', '3', '4', '5', '6', '7']) expect(window.seen(id)).toBe(false);
    expect(window.seen('7')).toBe(true);
    expect(window.seen('1')).toBe(false);
  });

  it('forgets an identity taken back (a reading dropped after all), whichever generation holds it', () => {
    const clock = new ManualClock(0);
    const window = new LocalRedeliveryWindow({ windowMs: 1000, clock });
    expect(window.seen('a')).toBe(false);
    window.forget('a');
    expect(window.seen('a')).toBe(false);
    clock.advance(1000);
    expect(window.seen('b')).toBe(false);
    window.forget('a');
    expect(window.seen('a')).toBe(false);
    expect(window.seen('b')).toBe(true);
  });
});
