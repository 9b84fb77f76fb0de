import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A bench process (a built script under dist/bench/processes) and its request channel. */
export interface BenchChild {
  readonly name: string;
  readonly pid: number;
  /** What the process announced when it became ready (its URL, broker URL, …). */
  readonly ready: Record<string, unknown>;
  /** Sends one request over IPC and resolves with the process's answer. */
  request<T = unknown>(type: string, payload?: unknown, timeoutMs?: number): Promise<T>;
  /** Last lines the process wrote to stderr (for failure reports). */
  stderr(): string;
  /** SIGTERM by PID, SIGKILL after `graceMs`; resolves once it exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  args?: readonly string[];
  /** Node flags, e.g. `--expose-gc`, `--cpu-prof`. */
  execArgv?: readonly string[];
  readyTimeoutMs?: number;
}

/**
 * How long a process may take to announce itself. The hub opens its embedded database (PGlite, a
 * WebAssembly PostgreSQL) at start, which takes seconds on a busy machine.
 */
const READY_TIMEOUT_MS = 90_000;

/** Every child still alive: killed by PID when this process exits, however it exits. */
const live = new Map<number, ChildProcess>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const pid of live.keys()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => process.exit(130));
  }
}

/** Script path of a bench process: `dist/bench/processes/<name>.js`. */
export function processScript(name: string): string {
  return fileURLToPath(new URL(`../processes/${name}.js`, import.meta.url));
}

/**
 * Forks `node dist/bench/processes/<name>.js` with an IPC channel and waits for its `ready`
 * message. The child exits on its own when this process goes away (it watches the channel).
 */
export function startChild(name: string, options: StartOptions = {}): Promise<BenchChild> {
  hookExit();
  const child = fork(processScript(name), [...(options.args ?? [])], {
    execArgv: [...(options.execArgv ?? [])],
    // stdout carries the hub's JSON logs: discarded (their cost stays in the measurement).
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const pid = child.pid!;
  live.set(pid, child);
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => live.delete(pid));

  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  child.on('message', (raw) => {
    const msg = raw as { id?: number; ok?: boolean; result?: unknown; error?: string };
    if (msg.id === undefined) return;
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new Error(`${name}: ${msg.error ?? 'request failed'}`));
  });
  void exited.then(() => {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(`${name} exited (code ${child.exitCode ?? child.signalCode}):\n${err}`));
    }
    pending.clear();
  });

  const handle = (ready: Record<string, unknown>): BenchChild => ({
    name,
    pid,
    ready,
    stderr: () => err,
    request<T>(type: string, payload?: unknown, timeoutMs = 60_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
          reject(new Error(`${name} is not running:\n${err}`));
          return;
        }
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${name}: '${type}' timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
        child.send({ id, type, payload });
      });
    },
    async stop(graceMs = 2000): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        return;
      }
      const kill = setTimeout(() => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }, graceMs);
      await exited;
      clearTimeout(kill);
    },
  });

  return new Promise<BenchChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
      reject(new Error(`${name} was not ready within ${options.readyTimeoutMs ?? READY_TIMEOUT_MS} ms:\n${err}`));
    }, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
    const onReady = (raw: unknown) => {
      const msg = raw as { type?: string; info?: Record<string, unknown> };
      if (msg.type !== 'ready') return;
      clearTimeout(timer);
      child.off('message', onReady);
      resolve(handle(msg.info ?? {}));
    };
    child.on('message', onReady);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${child.exitCode ?? child.signalCode}):\n${err}`));
    });
  });
}

/** Runs `body` with the children it starts, and stops every one of them afterwards, also on failure. */
export async function withChildren<T>(body: (start: typeof startChild) => Promise<T>): Promise<T> {
  const started: BenchChild[] = [];
  const start = async (name: string, options?: StartOptions) => {
    const child = await startChild(name, options);
    started.push(child);
    return child;
  };
  try {
    return await body(start);
  } finally {
    // Clients first, so servers are not busy closing thousands of sockets while being stopped.
    for (const child of started.reverse()) await child.stop();
  }
}
