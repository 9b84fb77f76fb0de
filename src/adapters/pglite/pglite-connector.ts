import { Worker } from 'node:worker_threads';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Connector, ScriptSql } from '../../features/storage/connector.js';
import { packageRoot } from '../../host/package-root.js';
import { lockDirectory } from './directory-lock.js';
import { deserializeError, type WorkerReply, type WorkerRequest } from './pglite-protocol.js';

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The worker's file: beside this one when built; the built one when the tests run the sources
 *  (a worker thread gets none of the test runner's TypeScript transform). */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return join(import.meta.dirname, 'pglite-worker.js');
  return join(packageRoot(), 'dist', 'src', 'adapters', 'pglite', 'pglite-worker.js');
}

/**
 * The embedded PostgreSQL (PGlite) on a data directory guarded by a lock file of our own, run in a
 * worker thread (`pglite-worker.ts`) so that its WebAssembly engine never holds the hub's event
 * loop: health probes, sockets and ingestion keep turning while a statement runs. One session:
 * transactions run one after another, each one worker-side transaction (RLS settings hold in it).
 * Errors come back with their fields (SQLSTATE `code` and the rest).
 */
export class PgliteConnector implements Connector {
  readonly engine = 'pglite';
  readonly #worker: Worker;
  readonly #release: () => void;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  #nextId = 1;
  #nextTx = 1;
  /** Set once the worker is gone (closed, or it died): every call then fails with it. */
  #gone: Error | undefined;

  private constructor(worker: Worker, release: () => void) {
    this.#worker = worker;
    this.#release = release;
    worker.on('message', (r: WorkerReply) => {
      const call = this.#pending.get(r.id);
      if (call === undefined) return;
      this.#pending.delete(r.id);
      if (r.ok) call.resolve('value' in r ? r.value : undefined);
      else call.reject(deserializeError(r.error!));
    });
    worker.on('error', (err) => this.#lost(err));
    worker.on('exit', (code) => this.#lost(new Error(`the embedded database's worker thread exited (code ${code})`)));
  }

  /** Opens (creating when new) the database in `directory`; throws DirectoryLockedError when another process has it. */
  static async open(directory: string): Promise<PgliteConnector> {
    const absolute = resolve(directory);
    const release = lockDirectory(absolute);
    let worker: Worker | undefined;
    try {
      worker = new Worker(workerFile(), { workerData: { directory: absolute } });
      await new Promise<void>((opened, failed) => {
        const onMessage = (r: WorkerReply) => {
          if (r.id !== 0) return;
          worker!.off('message', onMessage);
          if (r.ok) opened();
          else failed(deserializeError(r.error!));
        };
        worker!.on('message', onMessage);
        worker!.once('error', failed);
        worker!.once('exit', (code) =>
          failed(new Error(`the embedded database's worker thread exited (code ${code}) while opening '${absolute}'`)),
        );
      });
      worker.removeAllListeners('error').removeAllListeners('exit');
      return new PgliteConnector(worker, release);
    } catch (err) {
      await worker?.terminate();
      release();
      throw err;
    }
  }

  async transaction<T>(work: (sql: ScriptSql) => Promise<T>): Promise<T> {
    const tx = this.#nextTx++;
    await this.#call({ op: 'begin', tx });
    let result: T;
    try {
      const sql: ScriptSql = {
        query: <R>(text: string, params?: readonly unknown[]) =>
          this.#call({ op: 'query', tx, text, params }) as Promise<{ rows: R[]; rowCount: number }>,
        exec: async (script: string) => {
          await this.#call({ op: 'exec', tx, script });
        },
      };
      result = await work(sql);
    } catch (err) {
      await this.#call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw err;
    }
    await this.#call({ op: 'end', tx, commit: true });
    return result;
  }

  /** Closes the database, then ends the worker thread; nothing of it outlives this call. */
  async close(): Promise<void> {
    try {
      if (this.#gone === undefined) await this.#call({ op: 'close' });
    } finally {
      this.#gone ??= new Error('the embedded database is closed');
      await this.#worker.terminate();
      this.#release();
    }
  }

  #call(request: Request): Promise<unknown> {
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  #lost(err: Error): void {
    this.#gone ??= err;
    for (const call of this.#pending.values()) call.reject(err);
    this.#pending.clear();
  }
}
