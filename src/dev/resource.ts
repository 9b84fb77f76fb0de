import { spawn, type ChildProcess } from 'node:child_process';
import { LogBuffer } from './log-buffer.js';

/**
 * `waiting` for its dependencies, `starting` (spawned, not yet ready), `running` (ready),
 * `completed` (a one-shot that exited 0), `failed` (exited non-zero, or never became ready),
 * `skipped` (a dependency failed, so it was never started), `stopping`, `stopped`.
 */
export type ResourceState = 'waiting' | 'starting' | 'running' | 'completed' | 'failed' | 'skipped' | 'stopping' | 'stopped';

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
  readonly #exited: Promise<void>;
  #resolveExited!: () => void;
  readonly #listeners = new Set<(r: Resource) => void>();

  constructor(spec: ResourceSpec) {
    this.spec = spec;
    this.#exited = new Promise((resolve) => (this.#resolveExited = resolve));
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
      const stopping = this.#state === 'stopping';
      if (stopping) this.setState('stopped', `exited with ${code ?? signal}`);
      else if (code === 0 && spec.readiness.kind === 'exit') this.setState('completed', 'exited with code 0');
      else this.setState('failed', `exited with ${code !== null ? `code ${code}` : `signal ${signal}`}`);
      this.#resolveExited();
    });
  }

  /** SIGTERM by PID, SIGKILL after `graceMs`; resolves once it exited. */
  async stop(graceMs: number): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    this.setState('stopping');
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
