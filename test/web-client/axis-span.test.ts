import { describe, expect, it } from 'vitest';
import { axisSpan } from '../../web-client/src/ui/axis-scales';

describe('axisSpan', () => {
  it('grows a new chart through fixed steps up to its window, then keeps the window', () => {
    const five = 5 * 60_000;
    expect(axisSpan(0, five)).toBe(30_000);
    expect(axisSpan(10_000, five)).toBe(30_000);
    expect(axisSpan(30_001, five)).toBe(60_000);
    expect(axisSpan(90_000, five)).toBe(120_000);
    expect(axisSpan(200_000, five)).toBe(five);
    expect(axisSpan(10 * 60_000, five)).toBe(five);
    expect(axisSpan(0, 15_000)).toBe(15_000); // never wider than the window
    expect(axisSpan(20 * 60_000, 15 * 60_000)).toBe(15 * 60_000);
  });
});
