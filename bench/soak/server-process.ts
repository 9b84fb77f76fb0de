import { spawn, type ChildProcess } from 'node:child_process';
import { waitForPort } from './ports.js';

/** A server of the soak's own (redis-server, mosquitto) on a fixed port, restarted on that port. */
export interface ServerProcess {
  readonly name: string;
  readonly port: number;
  start(): Promise<void>;
  /** SIGKILL now, synchronously (for a process that is exiting). */
  kill(): void;
  /** SIGTERM (a clean stop: Mosquitto saves its sessions) or SIGKILL (a crash); resolves once it exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export function serverProcess(name: string, command: string, args: string[], port: number): ServerProcess {
  let child: ChildProcess | undefined;
  let output = '';
  return {
    name,
    port,
    kill() {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    async start() {
      const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      let exited = false;
      proc.once('exit', () => (exited = true));
      const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
      proc.stdout!.on('data', keep);
      proc.stderr!.on('data', keep);
      proc.once('error', (err) => (output += `\n${err.message}`));
      await waitForPort(port, name, 20_000, () => exited).catch((err: Error) => {
        throw new Error(`${err.message}:\n${output}`);
      });
    },
    async stop(signal = 'SIGTERM') {
      const proc = child;
      child = undefined;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      process.kill(proc.pid!, signal);
      const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    },
  };
}
