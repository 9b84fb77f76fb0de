import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgliteConnector } from '../../src/adapters/pglite/pglite-connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../src/features/storage/migrations.js';

/** Set by the orchestrator for its children: a migrated embedded database to copy. */
const TEMPLATE_ENV = 'HUB_BENCH_DATABASE_TEMPLATE';

/** A fresh migrated embedded database under `root`, the slow way (initdb, then migrations). */
async function migrated(root: string): Promise<string> {
  const dir = join(mkdtempSync(join(root, 'db-')), 'data');
  const connector = await PgliteConnector.open(dir);
  try {
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
  } finally {
    await connector.close();
  }
  return dir;
}

/**
 * Once per bench run (the orchestrator): makes the template every hub under test copies (a new
 * directory costs seconds of initdb, a copy milliseconds) and removes it all when the run ends.
 */
export async function prepareDatabaseTemplate(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'hub-bench-db-'));
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  process.env[TEMPLATE_ENV] = await migrated(root);
}

/** A hub under test's own migrated embedded database: a copy of the run's template, beside it. */
export async function benchDataDirectory(): Promise<string> {
  const template = process.env[TEMPLATE_ENV];
  if (template === undefined || !existsSync(template)) return migrated(mkdtempSync(join(tmpdir(), 'hub-bench-db-')));
  const dir = join(mkdtempSync(join(template, '..', '..', 'copy-')), 'data');
  cpSync(template, dir, { recursive: true });
  return dir;
}
