import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from './ports.js';
import { serverProcess, type ServerProcess } from './server-process.js';

/** No persistence, as the tests' private Redis: a restart comes back empty, which the hub must survive. */
export async function privateRedis(): Promise<ServerProcess> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  return serverProcess('redis', 'redis-server', args, port);
}

/**
 * Mosquitto with persistence, so a clean restart keeps what it acknowledged to the devices and the
 * hub's session; no limit on the messages it queues for a session (its default, 1000, would drop
 * acknowledged readings while no ingester is connected).
 */
export async function privateMosquitto(directory: string): Promise<ServerProcess> {
  const port = await freePort();
  const config = join(directory, 'mosquitto.conf');
  mkdirSync(join(directory, 'mosquitto'), { recursive: true });
  // Started as root, Mosquitto drops to its own user and could not write its database into a
  // directory root made: persistence would silently keep nothing, and a restart lose every session.
  chmodSync(join(directory, 'mosquitto'), 0o777);
  writeFileSync(
    config,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence true',
      `persistence_location ${join(directory, 'mosquitto')}/`,
      'max_queued_messages 0',
      'log_dest none',
      '',
    ].join('\n'),
  );
  return serverProcess('mosquitto', 'mosquitto', ['-c', config], port);
}

export interface PrivatePostgres {
  readonly port: number;
  readonly url: string;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`: open connections are cut, the server is back on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** An immediate stop, synchronous (for a process that is exiting). */
  stopNow(): void;
}

/** Where initdb and pg_ctl are: on PATH, else where `pg_config` says (Debian keeps them off PATH). */
function postgresBin(): string {
  if (spawnSync('initdb', ['--version'], { stdio: 'ignore' }).status === 0) return '';
  const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  if (!existsSync(join(bindir, 'initdb'))) throw new Error(`no initdb on PATH nor in ${bindir}`);
  return bindir;
}

/**
 * A PostgreSQL of the soak's own (initdb in a temporary directory, trust on 127.0.0.1, an ephemeral
 * port), so the soak may restart it. PostgreSQL refuses to run as root: as root it runs as the
 * `postgres` user (runuser), owning the directory.
 */
export async function privatePostgres(directory: string): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const tool = (name: string) => (bin ? join(bin, name) : name);
  const asRoot = userInfo().uid === 0;
  const run = (name: string, args: string[]) => {
    const command = asRoot ? 'runuser' : tool(name);
    const full = asRoot ? ['-u', 'postgres', '--', tool(name), ...args] : args;
    const r = spawnSync(command, full, { encoding: 'utf8', cwd: directory });
    if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  const root = join(directory, 'postgres');
  mkdirSync(root, { recursive: true });
  if (asRoot) {
    // The postgres user must reach its directory inside the root-owned scratch directory.
    chmodSync(directory, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  const data = join(root, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const serverOptions = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const log = join(root, 'server.log');
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      run('pg_ctl', ['-D', data, '-o', serverOptions, '-l', log, '-w', 'start']);
      await waitForPort(port, 'postgresql');
    },
    async restart() {
      run('pg_ctl', ['-D', data, '-o', serverOptions, '-l', log, '-m', 'fast', '-w', 'restart']);
      await waitForPort(port, 'postgresql');
    },
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } catch {
        // not running
      }
    },
    stopNow() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not running
      }
    },
  };
}

/** The soak's scratch directory (configuration, Mosquitto's and PostgreSQL's files), removed at the end. */
export function scratchDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'hub-soak-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
