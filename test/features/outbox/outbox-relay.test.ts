import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { systemClock } from '../../../src/host/clock.js';
import { addToOutbox } from '../../../src/features/outbox/outbox.js';
import { OutboxRelay } from '../../../src/features/outbox/outbox-relay.js';
import { MemoryBroker } from '../../../src/adapters/memory/memory-broker.js';
import type { Delivery, MessageQueue, OutgoingMessage } from '../../../src/features/outbox/message-queue.js';
import { freshDataDirectory } from '../../support/embedded-database.js';

/** The in-process queue behind a switch: while `down`, publishes fail as a broker outage would. */
function switchableQueue(): { queue: MessageQueue; set(down: boolean): void; published: OutgoingMessage[] } {
  const inner = new MemoryBroker().connect({ name: 'outbox-test', maxAttempts: 1 });
  let down = false;
  const published: OutgoingMessage[] = [];
  return {
    published,
    set: (value) => void (down = value),
    queue: {
      ...inner,
      publish: async (m) => {
        if (down) throw new Error('broker unreachable');
        published.push(m);
        await inner.publish(m);
      },
      consume: (h, o) => inner.consume(h, o),
      takeDeadLetter: (): Promise<Delivery | undefined> => inner.takeDeadLetter(),
      healthy: () => inner.healthy(),
      close: () => inner.close(),
    },
  };
}

describe('OutboxRelay (embedded database)', () => {
  const data = freshDataDirectory();
  let connector: PgliteConnector;
  let db: TenantDatabase;
  beforeAll(async () => {
    connector = await PgliteConnector.open(data.path);
    db = new TenantDatabase(connector);
  });
  afterAll(async () => {
    await connector?.close();
    data.remove();
  });

  const relayOn = (queue: MessageQueue) =>
    new OutboxRelay({
      db,
      queue,
      log: pino({ level: 'silent' }),
      clock: systemClock,
      pollMs: 1000,
      batch: 100,
      claimSeconds: 30,
    });
  const pending = () =>
    connector.transaction(
      async (sql) => (await sql.query<{ n: number }>('select count(*)::int as n from outbox')).rows[0]!.n,
    );

  it('publishes committed rows in commit order with tenant_id among the headers, then deletes them', async () => {
    await db.withTenant('acme', (sql) =>
      addToOutbox(sql, 'acme', { n: 1 }, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }),
    );
    await db.withTenant('globex', (sql) => addToOutbox(sql, 'globex', { n: 2 }, {}));
    const q = switchableQueue();
    expect(await relayOn(q.queue).relayOnce()).toBe(2);
    expect(q.published.map((m) => [JSON.parse(m.body.toString()).n, m.headers.tenant_id])).toEqual([
      [1, 'acme'],
      [2, 'globex'],
    ]);
    expect(q.published[0]!.headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(new Set(q.published.map((m) => m.id)).size).toBe(2);
    expect(await pending()).toBe(0);
  });

  it('a rolled-back change leaves no message', async () => {
    await expect(
      db.withTenant('acme', async (sql) => {
        await addToOutbox(sql, 'acme', { n: 3 }, {});
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await pending()).toBe(0);
  });

  it('while the broker is down the rows stay, unclaimed, and go out at the first round after it is back', async () => {
    await db.withTenant('acme', (sql) => addToOutbox(sql, 'acme', { n: 4 }, {}));
    const q = switchableQueue();
    const relay = relayOn(q.queue);
    q.set(true);
    await expect(relay.relayOnce()).rejects.toThrow('broker unreachable');
    expect(await pending()).toBe(1);
    q.set(false);
    expect(await relay.relayOnce()).toBe(1); // not after the 30 s claim: the failed round released it
    expect(await pending()).toBe(0);
  });

  it('tenants may add outbox rows but read none, not even their own; only work without a tenant reads them', async () => {
    await db.withTenant('acme', (sql) => addToOutbox(sql, 'acme', { n: 5 }, {}));
    expect((await db.withTenant('acme', (sql) => sql.query('select * from outbox'))).rows).toEqual([]);
    expect((await db.withSystem((sql) => sql.query('select * from outbox'))).rows).toHaveLength(1);
    await expect(db.withTenant('acme', (sql) => addToOutbox(sql, 'globex', { n: 6 }, {}))).rejects.toThrow(
      /row-level security/,
    );
    await relayOn(switchableQueue().queue).relayOnce();
  });
});
