import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../../../src/compose/app-config.js';
import { loadConfig } from '../../../src/compose/load-app-config.js';

/** A directory holding the given appsettings files (name → JSON value or raw text). */
export function contentRoot(files: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-config-'));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

/** Development configuration from command-line style arguments, with no files and no environment. */
export function devConfig(...args: string[]): AppConfig {
  return loadConfig({ args: ['--environment=Development', ...args], env: {}, contentRoot: contentRoot() });
}
