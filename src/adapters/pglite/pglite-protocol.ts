/**
 * The messages between the hub's thread and the embedded database's worker thread
 * (`pglite-worker.ts`). Every request carries an `id` the reply repeats; a transaction's
 * statements carry the `tx` its `begin` opened, so the worker runs them in that one transaction
 * (SET LOCAL and set_config(…, true) hold for the statements after them, as on a server).
 */
export type WorkerRequest =
  | { readonly op: 'begin'; readonly id: number; readonly tx: number }
  | {
      readonly op: 'query';
      readonly id: number;
      readonly tx: number;
      readonly text: string;
      readonly params: readonly unknown[] | undefined;
    }
  | { readonly op: 'exec'; readonly id: number; readonly tx: number; readonly script: string }
  /** COMMIT (`commit`) or ROLLBACK, and the transaction is over. */
  | { readonly op: 'end'; readonly id: number; readonly tx: number; readonly commit: boolean }
  | { readonly op: 'close'; readonly id: number };

export type WorkerReply =
  | { readonly id: number; readonly ok: true; readonly value?: unknown }
  | { readonly id: number; readonly ok: false; readonly error: SerializedError }
  /** Sent once, when the database is open (id 0), or why it could not open. */
  | { readonly id: 0; readonly ok: boolean; readonly error?: SerializedError };

/** An error as it crosses the thread boundary: structured clone keeps only name and message of an
 *  Error, so its own fields (SQLSTATE `code`, `detail`, `constraint`…) are copied by hand. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly fields: Record<string, string | number | boolean>;
}

export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(err)) {
    // `query` and `params` would repeat the statement and its data into every log line.
    if (key === 'query' || key === 'params' || key === 'name' || key === 'message') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  return { name: err.name, message: err.message, ...(err.stack !== undefined ? { stack: err.stack } : {}), fields };
}

export function deserializeError(e: SerializedError): Error {
  const err = Object.assign(new Error(e.message), e.fields);
  err.name = e.name;
  if (e.stack !== undefined)
    err.stack = `${e.stack}\n    --- in the embedded database's worker thread, called from ---\n${new Error().stack?.split('\n').slice(2).join('\n') ?? ''}`;
  return err;
}
