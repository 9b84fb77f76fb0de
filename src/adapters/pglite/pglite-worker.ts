import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { serializeError, type WorkerReply, type WorkerRequest } from './pglite-protocol.js';

/**
 * The worker thread that owns the embedded database: PGlite's WebAssembly PostgreSQL runs here,
 * so a statement never holds the hub's event loop. It speaks `pglite-protocol.ts` with
 * `PgliteConnector` and does nothing else.
 */

type TxRequest = Extract<WorkerRequest, { tx: number }>;

/** A transaction's statements as they arrive, handed to the worker-side transaction one by one. */
class Inbox {
  readonly #queued: TxRequest[] = [];
  #waiting: ((r: TxRequest) => void) | undefined;

  push(r: TxRequest): void {
    const wake = this.#waiting;
    this.#waiting = undefined;
    if (wake) wake(r);
    else this.#queued.push(r);
  }

  next(): Promise<TxRequest> {
    const r = this.#queued.shift();
    if (r !== undefined) return Promise.resolve(r);
    return new Promise((resolve) => (this.#waiting = resolve));
  }
}

/** Thrown inside the transaction to make PGlite roll it back. */
class RollBack extends Error {}

const port = parentPort!;
const reply = (r: WorkerReply): void => port.postMessage(r);
const fail = (id: number, err: unknown): void => reply({ id, ok: false, error: serializeError(err) });

let db: PGlite;
try {
  db = await PGlite.create((workerData as { directory: string }).directory);
  reply({ id: 0, ok: true });
} catch (err) {
  reply({ id: 0, ok: false, error: serializeError(err) });
  process.exit(1);
}

const inboxes = new Map<number, Inbox>();

function begin(id: number, txId: number): void {
  const inbox = new Inbox();
  inboxes.set(txId, inbox);
  let begun = false;
  let endId = id;
  // PGlite runs one transaction at a time (its own lock): a later begin waits here, as on one session.
  db.transaction(async (tx: Transaction) => {
    begun = true;
    reply({ id, ok: true });
    for (;;) {
      const r = await inbox.next();
      if (r.op === 'end') {
        endId = r.id;
        if (r.commit) return;
        throw new RollBack();
      }
      try {
        if (r.op === 'query') {
          const result = await tx.query(r.text, r.params as unknown[] | undefined);
          reply({
            id: r.id,
            ok: true,
            value: { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length },
          });
        } else if (r.op === 'exec') {
          await tx.exec(r.script);
          reply({ id: r.id, ok: true });
        }
      } catch (err) {
        fail(r.id, err);
      }
    }
  })
    .then(
      () => reply({ id: endId, ok: true }),
      (err: unknown) => {
        if (err instanceof RollBack) reply({ id: endId, ok: true });
        else fail(begun ? endId : id, err);
      },
    )
    .finally(() => inboxes.delete(txId));
}

port.on('message', (r: WorkerRequest) => {
  if (r.op === 'begin') begin(r.id, r.tx);
  else if (r.op === 'close') {
    db.close().then(
      () => reply({ id: r.id, ok: true }),
      (err: unknown) => fail(r.id, err),
    );
  } else {
    const inbox = inboxes.get(r.tx);
    if (inbox === undefined) fail(r.id, new Error(`no open transaction ${r.tx}`));
    else inbox.push(r);
  }
});
