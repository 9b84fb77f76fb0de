import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';

/**
 * An embedded database directory, already migrated, made by the global setup once per run: a new
 * PGlite directory costs seconds of initdb, a copy of this one a few milliseconds.
 */
const ROOT = import.meta.dirname.includes(`${sep}dist${sep}`)
  ? join(import.meta.dirname, '..', '..', '..')
  : join(import.meta.dirname, '..', '..');
export const TEMPLATE_DATA_DIRECTORY = join(ROOT, 'dist', 'test-embedded-database');

/** A fresh copy of the migrated template in a temporary directory; `remove` deletes it. */
export function freshDataDirectory(): { path: string; remove(): void } {
  if (!existsSync(TEMPLATE_DATA_DIRECTORY))
    throw new Error(`the test database template ${TEMPLATE_DATA_DIRECTORY} is missing (made by test/global-setup.ts)`);
  const root = mkdtempSync(join(tmpdir(), 'hub-db-'));
  const path = join(root, 'data');
  cpSync(TEMPLATE_DATA_DIRECTORY, path, { recursive: true });
  return { path, remove: () => rmSync(root, { recursive: true, force: true }) };
}
