import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { reachable } from './services.js';

/**
 * A server of the test's own (redis-server, mosquitto) on an ephemeral port, so a test may stop
 * and restart it without disturbing anyone else's. Stopped by PID with SIGKILL: a crash, as a
 * lost server looks to the hub.
 */
export interface PrivateServer {
  readonly port: number;
  /** Starts it (again, on the same port) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and resolves once it exited. */
  stop(): Promise<void>;
}

/** Is `command` on PATH? Without it the tests skip with a message, and fail under CI=true. */
export function requireCommand(command: string, why: string): boolean {
  const probe = spawnSync(command, ['-h'], { stdio: 'ignore' });
  if (!(probe.error as NodeJS.ErrnoException | undefined)) return true;
  const message = `${command} is not installed (${why})`;
  if (process.env.CI === 'true') throw new Error(`${message} (required under CI)`);
  console.warn(`skipping: ${message}`);
  return false;
}

/** A free port on 127.0.0.1, chosen by the kernel. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function privateServer(command: string, args: (port: number) => string[]): Promise<PrivateServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  return {
    port,
    async start() {
      if (child) return;
      const proc = spawn(command, args(port), { stdio: 'ignore' });
      child = proc;
      let exited = false;
      proc.once('exit', () => (exited = true));
      const deadline = Date.now() + 10_000;
      while (!(await reachable(port))) {
        if (exited) throw new Error(`${command} on port ${port} exited at start`);
        if (Date.now() > deadline) {
          proc.kill('SIGKILL');
          throw new Error(`${command} did not listen on port ${port} within 10 s`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async stop() {
      const proc = child;
      child = undefined;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      process.kill(proc.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** A redis-server on `port`, loopback only, without persistence: a restart starts empty. */
export const privateRedisArgs = (port: number): string[] => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
];

/** No persistence: a restart starts empty, as pub/sub needs. */
export function privateRedis(): Promise<PrivateServer> {
  return privateServer('redis-server', privateRedisArgs);
}

export const redisUrl = (redis: PrivateServer): string => `redis://127.0.0.1:${redis.port}`;

/** Mosquitto's defaults without a configuration file: loopback only, anonymous clients, no persistence. */
export function privateMosquitto(): Promise<PrivateServer> {
  return privateServer('mosquitto', (port) => ['-p', String(port)]);
}
