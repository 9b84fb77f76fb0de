import { connect } from 'node:net';
import { Resource, type Readiness, type ResourceSpec } from './resource.js';
import { systemClock } from '../host/clock.js';

/** Does the resource answer as its readiness says? One attempt. */
async function isReady(readiness: Readiness, resource: Resource): Promise<boolean> {
  switch (readiness.kind) {
    case 'exit':
      return false;
    case 'log':
      return resource.linesOfThisRun().some((line) => readiness.pattern.test(line));
    case 'port':
      return new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: readiness.port });
        const done = (ok: boolean) => (socket.destroy(), resolve(ok));
        socket.setTimeout(500, () => done(false));
        socket.once('connect', () => done(true));
        socket.once('error', () => done(false));
      });
    case 'http':
      try {
        const res = await fetch(readiness.url, { signal: AbortSignal.timeout(1000) });
        await res.body?.cancel();
        return res.status === 200;
      } catch {
        return false;
      }
  }
}

/**
 * Runs resources in dependency order: each starts once everything in its `after` list is running
 * (a one-shot such as the migrations: has exited 0); when a dependency fails, its dependents are
 * never started and show as skipped. Independent resources start side by side. `stop` stops what
 * it started in reverse order, one at a time, by PID.
 */
export class Orchestrator {
  readonly resources: readonly Resource[];
  readonly #byName: Map<string, Resource>;
  readonly #settled = new Map<string, Promise<boolean>>();
  readonly #spawned: Resource[] = [];
  readonly #pollMs: number;
  #stopping = false;

  constructor(specs: readonly ResourceSpec[], options: { pollMs?: number } = {}) {
    this.resources = specs.map((s) => new Resource(s));
    this.#byName = new Map(this.resources.map((r) => [r.spec.name, r]));
    this.#pollMs = options.pollMs ?? 100;
    for (const r of this.resources) {
      for (const dep of r.spec.after)
        if (!this.#byName.has(dep)) throw new Error(`resource '${r.spec.name}' waits for unknown '${dep}'`);
    }
  }

  get(name: string): Resource | undefined {
    return this.#byName.get(name);
  }

  /** Starts everything; resolves once every resource is running, completed, failed or skipped. */
  async start(): Promise<void> {
    await Promise.all(this.resources.map((r) => this.#settle(r)));
  }

  /** Stops every started resource in reverse start order, each SIGTERM then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    this.#stopping = true;
    for (const r of [...this.#spawned].reverse()) await r.stop(graceMs);
  }

  /** Last resort when the orchestrator itself exits: SIGKILL whatever still runs. */
  killAll(): void {
    for (const r of this.#spawned) r.killNow();
  }

  #settle(r: Resource): Promise<boolean> {
    let settled = this.#settled.get(r.spec.name);
    if (settled === undefined) {
      settled = this.#run(r);
      this.#settled.set(r.spec.name, settled);
    }
    return settled;
  }

  async #run(r: Resource): Promise<boolean> {
    const deps = await Promise.all(
      r.spec.after.map(async (name) => [name, await this.#settle(this.#byName.get(name)!)] as const),
    );
    const failed = deps.filter(([, ok]) => !ok).map(([name]) => name);
    if (failed.length > 0) {
      r.setState('skipped', `not started: ${failed.join(', ')} did not succeed`);
      return false;
    }
    if (this.#stopping) return false;
    r.spawn();
    this.#spawned.push(r);
    return this.#untilReady(r);
  }

  /**
   * Stops one started resource and starts it again (the page's restart button), in the
   * background; its dependents keep running. False when it was never started (waiting, skipped),
   * is restarting already, or everything is stopping.
   */
  restart(name: string, graceMs = 15_000): boolean {
    const r = this.#byName.get(name);
    if (
      r === undefined ||
      !this.#spawned.includes(r) ||
      this.#stopping ||
      r.state === 'restarting' ||
      r.state === 'stopping'
    )
      return false;
    void (async () => {
      await r.stop(graceMs, 'restarting');
      if (this.#stopping) return;
      r.spawn();
      await this.#untilReady(r);
    })();
    return true;
  }

  async #untilReady(r: Resource): Promise<boolean> {
    if (r.spec.readiness.kind === 'exit') {
      await r.exited;
      return r.state === 'completed';
    }
    const deadline = systemClock.monotonicNow() + (r.spec.readyTimeoutMs ?? 60_000);
    while (r.state === 'starting') {
      if (await isReady(r.spec.readiness, r)) {
        if (r.state === 'starting') r.setState('running');
        break;
      }
      if (systemClock.monotonicNow() > deadline) {
        r.setState('failed', `not ready within ${Math.round((r.spec.readyTimeoutMs ?? 60_000) / 1000)} s`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
    }
    return r.state === 'running';
  }
}
