#!/usr/bin/env node
// Entry of `npm run migrate`: applies the missing migrations once and exits (0 done, 1 failed and
// nothing changed, 78 bad configuration). The only place this tool reads the process environment.
import { commandLine, ExitCode } from '../host/command-line.js';
import { ConfigError, resolveConfig } from '../host/config/load-config.js';
import { redactText } from '../host/config/redact-secrets.js';
import { DATABASE_KEYS, toDatabaseConfig } from '../compose/keys/database-keys.js';
import { loadMigrations, migrate, pad } from '../features/storage/migrations.js';
import { openConnector } from '../compose/open-connector.js';

const MIGRATE_USAGE = `usage: npm run migrate -- [--environment E] [--ConnectionStrings:postgres=URL] [--Database:Key=value ...]

Applies the missing database migrations once, under an advisory lock, then exits. Reads only the
ConnectionStrings:postgres and Database:* keys, resolved like the hub's configuration.
Exit codes: 0 done (or already up to date), 1 a migration failed and nothing was changed,
64 a bad command line, 78 a bad configuration value.`;

const { configArgs } = commandLine({ name: 'migrate', usage: MIGRATE_USAGE, options: {}, configArgs: true });

const say = (text: string): void => void process.stderr.write(`migrate: ${redactText(text)}\n`);

async function main(): Promise<number> {
  let config: ReturnType<typeof toDatabaseConfig>;
  try {
    // Only the database's keys: migrating needs none of the hub's secrets.
    config = toDatabaseConfig(
      resolveConfig({ args: configArgs, env: process.env, contentRoot: process.cwd() }, DATABASE_KEYS),
    );
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    say(err.message);
    return ExitCode.config;
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
      return ExitCode.ok;
    } finally {
      await connector.close();
    }
  } catch (err) {
    say(`${(err as Error).message}; nothing was changed`);
    return ExitCode.failure;
  }
}

process.exitCode = await main();
