import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freshDataDirectory } from '../../support/embedded-database.js';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
export const MAIN = join(ROOT, 'dist/src/main.js');
export const FIXTURE = join(ROOT, 'dist/test/fixtures/lifecycle-host.js');
/** Ephemeral ports and no simulator: runs in parallel with anything. */
export const EPHEMERAL = ['--Http:Port=0', '--Ingestion:Mqtt:EmbeddedPort=0'];

const children = new Set<ChildHost>();

/** A built entry running as a real process, with its output collected. */
export class ChildHost {
  readonly process: ChildProcess;
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    entry: string,
    args: readonly string[],
    env: Record<string, string> = {},
    options: { cwd?: string } = {},
  ) {
    const base = { ...process.env };
    delete base.HUB_ENVIRONMENT;
    // Each process its own embedded database (one process per directory), unless the test picks one.
    const data = env.Database__DataDirectory === undefined ? freshDataDirectory() : undefined;
    if (data) base.Database__DataDirectory = data.path;
    this.process = spawn(process.execPath, [entry, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.process.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.process.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => this.process.once('exit', (code, signal) => resolve({ code, signal })));
    if (data) void this.exited.then(() => data.remove());
    children.add(this);
    void this.exited.then(() => children.delete(this));
  }

  /** Resolves when the output matches; rejects when the process exits first or after timeoutMs. */
  waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const m = this.output.match(pattern);
        if (m) finish(() => resolve(m));
        return m !== null;
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${this.output}`))),
        timeoutMs,
      );
      // Output may still be in flight when 'exit' fires: look once more on the next turn.
      const onExit = () =>
        setImmediate(
          () => check() || finish(() => reject(new Error(`exited before ${pattern}; output:\n${this.output}`))),
        );
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        this.process.stdout!.off('data', check);
        this.process.stderr!.off('data', check);
        this.process.off('exit', onExit);
        fn();
      };
      this.process.stdout!.on('data', check);
      this.process.stderr!.on('data', check);
      this.process.once('exit', onExit);
      check();
    });
  }

  /** The bound URL from the `listening` line (JSON or the readable Development format). */
  async listeningUrl(): Promise<string> {
    // JSON puts the fields before the message, the readable format after it.
    const m = await this.waitFor(
      /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"listening"|\blistening\b[^\n]*\n(?:\s+\w+:[^\n]*\n)*?\s+url:\s*"(http:\/\/[^"]+)"/,
    );
    return (m[1] ?? m[2])!;
  }

  signal(signal: NodeJS.Signals): void {
    process.kill(this.process.pid!, signal);
  }
}

/** For afterEach: kills every child still running, by its PID, and waits for it. */
export async function killChildren(): Promise<void> {
  await Promise.all(
    [...children].map(async (child) => {
      if (child.process.exitCode === null && child.process.signalCode === null)
        process.kill(child.process.pid!, 'SIGKILL');
      await child.exited;
    }),
  );
}
