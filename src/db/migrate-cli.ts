#!/usr/bin/env node
// Entry of `npm run migrate`: applies the missing migrations once and exits (0 done, 1 failed and
// nothing changed, 78 bad configuration). The only place this tool reads the process environment.
import { ConfigError, resolveConfig } from '../host/config/load-config.js';
import { redactText } from '../host/config/redact-secrets.js';
import { DATABASE_KEYS, toDatabaseConfig } from './database-keys.js';
import { loadMigrations, migrate, pad } from './migrations.js';
import { openConnector } from './open-connector.js';

const say = (text: string): void => void process.stderr.write(`migrate: ${redactText(text)}\n`);

async function main(): Promise<number> {
  let config;
  try {
    // Only the database's keys: migrating needs none of the hub's secrets.
    config = toDatabaseConfig(resolveConfig({ args: process.argv.slice(2), env: process.env, contentRoot: process.cwd() }, DATABASE_KEYS));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    say(err.message);
    return 78;
  }
  const log = { warn: (fields: object, message: string): void => say(`${message} ${JSON.stringify(fields)}`) };
  try {
    const migrations = loadMigrations(config.migrationsDirectory);
    const connector = await openConnector(config, log);
    try {
      const applied = await migrate(connector, migrations);
      const where = connector.engine === 'pglite' ? `embedded database in ${config.dataDirectory}` : 'PostgreSQL';
      process.stdout.write(
        applied.length === 0
          ? `migrate: ${where} is up to date (${migrations.length} migrations)\n`
          : `migrate: applied ${applied.map(pad).join(', ')} to ${where}\n`,
      );
      return 0;
    } finally {
      await connector.close();
    }
  } catch (err) {
    say(`${(err as Error).message}; nothing was changed`);
    return 1;
  }
}

process.exitCode = await main();
