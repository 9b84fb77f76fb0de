import { spawn, type ChildProcess } from 'node:child_process';
import { LogBuffer } from './log-buffer.js';

/**
 * `waiting` for its dependencies, `starting` (spawned, not yet ready), `running` (ready),
 * `completed` (a one-shot that exited 0), `failed` (exited non-zero, or never became ready),
 * `skipped` (a dependency failed, so it was never started), `restarting` (stopped on request, to
 * be started again), `stopping`, `stopped`.
 */
export type ResourceState =
  | 'waiting'
  | 'starting'
  | 'running'
  | 'completed'
  | 'failed'
  | 'skipped'
  | 'restarting'
  | 'stopping'
  | 'stopped';

/** How the orchestrator knows a resource is ready. */
export type Readiness =
  /** A one-shot (migrations): ready = exited 0. */
  | { kind: 'exit' }
  /** Accepts TCP connections on 127.0.0.1:port. */
  | { kind: 'port'; port: number }
  /** Answers 200 at this URL. */
  | { kind: 'http'; url: string }
  /** Printed a line matching this. */
  | { kind: 'log'; pattern: RegExp };

export interface ResourceSpec {
  readonly name: string;
  /** For the dashboard: what it is (`cache`, `database`, `migrations`, `hub`, `gateway`, …). */
  readonly type: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Injected configuration, on top of the orchestrator's own environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Run as this user (PostgreSQL refuses to run as root). */
  readonly uid?: number;
  readonly gid?: number;
  readonly endpoints: readonly { readonly name: string; readonly url: string; readonly external?: boolean }[];
  /** Resources that must be running (or, for one-shots, completed) first. */
  readonly after: readonly string[];
  readonly readiness: Readiness;
  /** Milliseconds to become ready before it counts as failed. */
  readonly readyTimeoutMs?: number;
}

export interface ResourceStatus {
  name: string;
  type: string;
  state: ResourceState;
  pid: number | undefined;
  exitCode: number | null | undefined;
  endpoints: ResourceSpec['endpoints'];
  detail: string | undefined;
  /** The last lines of a failed resource (empty otherwise). */
  lastLines: string[];
}

/** One resource the orchestrator runs: its process, state and log. */
export class Resource {
  readonly spec: ResourceSpec;
  readonly log = new LogBuffer();
  #state: ResourceState = 'waiting';
  #child: ChildProcess | undefined;
  #exitCode: number | null | undefined;
  #detail: string | undefined;
  #exited: Promise<void> = Promise.resolve();
  /** The log's position when the current process was spawned. */
  #spawnedAt = 0;
  #resolveExited: () => void = () => undefined;
  readonly #listeners = new Set<(r: Resource) => void>();

  constructor(spec: ResourceSpec) {
    this.spec = spec;
  }

  get state(): ResourceState {
    return this.#state;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Resolves once the process exited (at once if it never started). */
  get exited(): Promise<void> {
    return this.#child === undefined ? Promise.resolve() : this.#exited;
  }

  /** What the current process printed (a restarted one's earlier run excluded). */
  linesOfThisRun(): string[] {
    return this.log.since(this.#spawnedAt);
  }

  onChange(listener: (r: Resource) => void): void {
    this.#listeners.add(listener);
  }

  status(): ResourceStatus {
    return {
      name: this.spec.name,
      type: this.spec.type,
      state: this.#state,
      pid: this.#child?.pid,
      exitCode: this.#exitCode,
      endpoints: this.spec.endpoints,
      detail: this.#detail,
      lastLines: this.#state === 'failed' ? this.log.tail(20) : [],
    };
  }

  setState(state: ResourceState, detail?: string): void {
    this.#state = state;
    this.#detail = detail;
    if (detail !== undefined) this.log.push(`[orchestrator] ${state}: ${detail}`);
    for (const listener of this.#listeners) listener(this);
  }

  /** Spawns the process; its own process group, so a terminal's Ctrl-C reaches only the orchestrator. */
  spawn(): void {
    const { spec } = this;
    this.#exited = new Promise((resolve) => (this.#resolveExited = resolve));
    this.#exitCode = undefined;
    this.#spawnedAt = this.log.position;
    this.setState('starting');
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(spec.uid !== undefined ? { uid: spec.uid, gid: spec.gid } : {}),
    });
    this.#child = child;
    child.stdout!.setEncoding('utf8').on('data', (c: string) => this.log.write(c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => this.log.write(c));
    child.once('error', (err) => {
      this.log.push(`[orchestrator] could not start: ${err.message}`);
      this.#exitCode = null;
      this.setState('failed', `could not start ${spec.command}: ${err.message}`);
      this.#resolveExited();
    });
    child.once('exit', (code, signal) => {
      this.#exitCode = code;
      if (this.#state === 'restarting') this.log.push(`[orchestrator] exited with ${code ?? signal}; starting again`);
      else if (this.#state === 'stopping') this.setState('stopped', `exited with ${code ?? signal}`);
      else if (code === 0 && spec.readiness.kind === 'exit') this.setState('completed', 'exited with code 0');
      else this.setState('failed', `exited with ${code !== null ? `code ${code}` : `signal ${signal}`}`);
      this.#resolveExited();
    });
  }

  /** SIGTERM by PID, SIGKILL after `graceMs`; resolves once it exited. `restarting`: to be spawned again. */
  async stop(graceMs: number, as: 'stopping' | 'restarting' = 'stopping'): Promise<void> {
    const child = this.#child;
    if (as === 'restarting') this.setState('restarting');
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    if (as === 'stopping') this.setState('stopping');
    try {
      process.kill(child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const kill = setTimeout(() => {
      try {
        process.kill(child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, graceMs);
    await this.#exited;
    clearTimeout(kill);
  }

  /** For the orchestrator's own exit: no waiting, no state. */
  killNow(): void {
    const child = this.#child;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}
