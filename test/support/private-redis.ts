import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { reachable } from './services.js';

/**
 * A redis-server of the test's own on an ephemeral port, so a test may stop and restart Redis
 * without disturbing anyone else's. No persistence: a restart starts empty, as pub/sub needs.
 */
export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** Starts it (again, on the same port) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it by PID and resolves once it exited. */
  stop(): Promise<void>;
}

/** Is `redis-server` on PATH? Without it the tests skip with a message, and fail under CI=true. */
export function requireRedisServer(): boolean {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (found) return true;
  const message = 'redis-server is not installed (needed to stop and restart a private Redis)';
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

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (child) return;
      const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      child = proc;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      const deadline = Date.now() + 10_000;
      let exitedEarly = false;
      void exited.then(() => (exitedEarly = true));
      while (!(await reachable(port))) {
        if (exitedEarly) throw new Error(`redis-server on port ${port} exited at start`);
        if (Date.now() > deadline) {
          proc.kill('SIGKILL');
          throw new Error(`redis-server did not listen on port ${port} within 10 s`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async stop() {
      const proc = child;
      if (!proc) return;
      child = undefined;
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      process.kill(proc.pid!, 'SIGKILL');
      await exited;
    },
  };
}
