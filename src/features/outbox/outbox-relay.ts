import type { Logger } from 'pino';
import type { Database } from '../storage/database.js';
import type { Clock } from '../../host/clock.js';
import { BackgroundService } from '../../host/lifecycle/hosted-service.js';
import type { MessageQueue } from './message-queue.js';
import { serviceKey } from '../../host/container/service-key.js';

export interface OutboxRelayOptions {
  readonly db: Database;
  readonly queue: MessageQueue;
  readonly log: Logger;
  readonly clock: Clock;
  /** Also looks without being kicked this often, for rows a crashed process left (ms). */
  readonly pollMs: number;
  /** Rows claimed per round. */
  readonly batch: number;
  /** A claim not finished within this is taken over by any relay (s). */
  readonly claimSeconds: number;
}

interface Pending {
  id: string;
  position: string | number;
  body: unknown;
  headers: Record<string, string> | string;
}

/**
 * Publishes the outbox: claims a batch of rows (short transaction), publishes each and waits for the
 * broker's confirm, then deletes them (another short transaction). At least once: a relay that dies
 * after publishing and before deleting leaves its claim to expire, and the rows are published again;
 * consumers dedupe by message id. A row is never deleted before its publish was confirmed.
 * `kick()` after a commit makes it look at once; otherwise it looks every `pollMs`.
 */
export class OutboxRelay extends BackgroundService {
  readonly name = 'outbox-relay';
  #wake: (() => void) | undefined;
  #kicked = false;

  constructor(private readonly options: OutboxRelayOptions) {
    super();
  }

  /** Something was committed: look now rather than at the next poll. */
  kick(): void {
    this.#kicked = true;
    this.#wake?.();
  }

  protected async execute(stopping: AbortSignal): Promise<void> {
    const { log } = this.options;
    let failing = false;
    while (!stopping.aborted) {
      this.#kicked = false;
      let published = 0;
      try {
        published = await this.relayOnce();
        if (failing) log.info('outbox relay publishing again');
        failing = false;
      } catch (err) {
        if (!failing) log.warn({ err: (err as Error).message }, 'outbox relay could not publish; retrying');
        failing = true;
      }
      // A full batch may mean more rows are waiting: go again at once.
      if (published === this.options.batch || (this.#kicked && !failing)) continue;
      await this.#sleep(stopping);
    }
  }

  /** One round: claim, publish, delete. Returns how many were published. */
  async relayOnce(): Promise<number> {
    const { db, queue, batch, claimSeconds } = this.options;
    const claimed = await db.withSystem(async (sql) => {
      const { rows } = await sql.query<Pending>(
        `update outbox set claimed_until = now() + make_interval(secs => $2)
         where id in (select id from outbox where claimed_until is null or claimed_until < now()
                      order by position limit $1 for update skip locked)
         returning id, position, body, headers`,
        [batch, claimSeconds],
      );
      // RETURNING has no order of its own: publish in commit order.
      return rows.sort((a, b) => Number(a.position) - Number(b.position));
    });
    if (claimed.length === 0) return 0;
    const done: string[] = [];
    try {
      for (const row of claimed) {
        const headers =
          typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : row.headers;
        const body = typeof row.body === 'string' ? row.body : JSON.stringify(row.body);
        await queue.publish({ id: row.id, body: Buffer.from(body), headers });
        done.push(row.id);
      }
    } finally {
      const left = claimed.map((r) => r.id).filter((id) => !done.includes(id));
      await db.withSystem(async (sql) => {
        if (done.length > 0) await sql.query(`delete from outbox where id = any($1::uuid[])`, [done]);
        // Not published (the broker failed): free them for the next round instead of waiting out the claim.
        if (left.length > 0)
          await sql.query(`update outbox set claimed_until = null where id = any($1::uuid[])`, [left]);
      });
    }
    return done.length;
  }

  #sleep(stopping: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const { clock, pollMs } = this.options;
      const done = () => {
        clock.clearTimeout(timer);
        stopping.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      const timer = clock.setTimeout(done, pollMs);
      timer.unref?.();
      this.#wake = done;
      stopping.addEventListener('abort', done, { once: true });
      // A stop that came while the round ran has already fired its abort: no listener would hear it.
      if (this.#kicked || stopping.aborted) done();
    });
  }
}

export const OUTBOX_RELAY = serviceKey<OutboxRelay>('outboxRelay');
