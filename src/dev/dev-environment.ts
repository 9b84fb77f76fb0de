import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { findBinary, type DevEnvironment, type DevOptions } from './dev-plan.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** uid/gid of the `postgres` account, from /etc/passwd (PostgreSQL will not run as root). */
function postgresAccount(): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('postgres:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    return uid !== undefined && gid !== undefined ? { uid: Number(uid), gid: Number(gid) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What this machine offers the orchestrator: local binaries, the project's scripts, free ports.
 * Prepares the data directory (PostgreSQL run as its own account must own its directory).
 */
export function detectEnvironment(options: DevOptions): DevEnvironment {
  const binaries: DevEnvironment['binaries'] = {};
  for (const name of ['redis-server', 'mosquitto', 'postgres', 'initdb', 'rabbitmq-server', 'epmd'] as const) {
    const found = findBinary(name);
    if (found) binaries[name] = found;
  }
  const asRoot = process.getuid?.() === 0;
  const postgresUser = asRoot ? postgresAccount() : undefined;
  if (asRoot && postgresUser === undefined) {
    // Root without a postgres account: PostgreSQL cannot run; the hubs use their embedded database.
    delete binaries.postgres;
    delete binaries.initdb;
  }
  mkdirSync(options.dataDir, { recursive: true });
  const pgDir = join(options.dataDir, 'postgres');
  if (binaries.postgres && postgresUser) {
    chmodSync(options.dataDir, 0o755);
    mkdirSync(pgDir, { recursive: true, mode: 0o700 });
    chownSync(pgDir, postgresUser.uid, postgresUser.gid);
  }
  if (binaries['rabbitmq-server']) {
    // A private node: its files here, and no plugins (the management plugin would want a port too).
    const rabbitDir = join(options.dataDir, 'rabbitmq');
    mkdirSync(join(rabbitDir, 'log'), { recursive: true });
    writeFileSync(join(rabbitDir, 'enabled_plugins'), '[].\n');
  }
  const pkg = JSON.parse(readFileSync(join(options.root, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return {
    binaries,
    scripts: pkg.scripts ?? {},
    postgresInitialised: existsSync(join(pgDir, 'PG_VERSION')),
    postgresUser,
    rabbitMqUrl: process.env.ConnectionStrings__rabbitmq,
    freePort,
  };
}
