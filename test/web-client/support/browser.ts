// Debian's Chromium through playwright-core (never a downloaded browser). Without it, browser tests
// skip with a note, except under CI=true, where a missing browser is a failure.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Skip only off CI: on CI the suite runs and `launchChromium` fails with the reason. */
export function shouldSkipBrowserTests(env: NodeJS.ProcessEnv, chromiumExists: boolean): boolean {
  return !chromiumExists && env.CI !== 'true';
}

export const skipBrowserTests = shouldSkipBrowserTests(process.env, hasChromium);
if (skipBrowserTests)
  console.warn(
    `browser tests skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH; under CI=true this fails instead)`,
  );

/** Starts the browser, or throws saying why (missing, or present but unable to start): never a skip. */
export async function launchChromium(executablePath = CHROMIUM): Promise<Browser> {
  if (!existsSync(executablePath))
    throw new Error(`no Chromium at ${executablePath}: install Debian's chromium or set CHROMIUM_PATH`);
  try {
    return await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      timeout: 30_000,
    });
  } catch (err) {
    throw new Error(`Chromium at ${executablePath} could not start: ${(err as Error).message.split('\n')[0]}`, {
      cause: err,
    });
  }
}

/** Where screenshots go: test-results/web-client/ (kept for a human to look at, overwritten each run). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'web-client');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** Text of the first `.latest dd` (newest value of the first metric) in the chart card of `deviceId`. */
export function latestValue(page: Page, deviceId: string): Promise<string | null> {
  return page.locator(`.chart-card:has(h3:text-is("${deviceId}")) .latest dd`).first().textContent();
}

/**
 * Records every `data-state` the status pill takes (a MutationObserver, so short states are not missed
 * between polls); read it with `pillHistory(page)`.
 */
export async function recordPillStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const pill = document.querySelector('.pill') as HTMLElement;
    const w = window as unknown as { __pillStates: string[] };
    w.__pillStates = [pill.dataset.state ?? ''];
    new MutationObserver(() => {
      const s = pill.dataset.state ?? '';
      if (w.__pillStates.at(-1) !== s) w.__pillStates.push(s);
    }).observe(pill, { attributes: true, attributeFilter: ['data-state'] });
  });
}

export function pillHistory(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __pillStates: string[] }).__pillStates);
}
