import { describe, expect, it } from 'vitest';
import { launchChromium, shouldSkipBrowserTests } from './support/browser';

describe('browser tests under CI', () => {
  it('skip without a browser only off CI; under CI=true they run (and fail)', () => {
    expect(shouldSkipBrowserTests({}, false)).toBe(true);
    expect(shouldSkipBrowserTests({ CI: 'true' }, false)).toBe(false);
    expect(shouldSkipBrowserTests({}, true)).toBe(false);
  });

  it('a missing browser, or one that cannot start, is an error naming the path, not a skip', async () => {
    await expect(launchChromium('/nonexistent/chromium')).rejects.toThrow(/no Chromium at \/nonexistent\/chromium/);
    // An executable that exits at once: present, but it cannot start a browser.
    await expect(launchChromium('/bin/false')).rejects.toThrow(/Chromium at \/bin\/false could not start/);
  });
});
