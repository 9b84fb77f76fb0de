import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBroker } from '../../../src/adapters/memory/memory-broker.js';
import { DatabaseDeliveryAddresses } from '../../../src/features/customers/fulfilment/database-delivery-addresses.js';
import { FulfilmentWorker, QUEUE_MESSAGE } from '../../../src/features/orders/fulfilment-worker.js';
import { ServiceCollection } from '../../../src/host/container/service-collection.js';
import { currentTenant } from '../../../src/host/security/tenant-context.js';
import { TENANT_CONTEXT, TenantContext } from '../../../src/host/security/tenant-scope.js';
import { captureLog } from '../../host/support/capture-log.js';
import { startApp, type RunningApp } from '../../support/app-harness.js';

/** The worker's scope per queue message: created at its start, disposed at its end, failed or not. */
describe('fulfilment worker: a service scope per message (embedded database)', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp();
  });
  afterAll(async () => running?.stop());

  function worker(addresses?: ConstructorParameters<typeof FulfilmentWorker>[0]['addresses']) {
    const events: string[] = [];
    const scopes = new ServiceCollection()
      .perScope(QUEUE_MESSAGE)
      .scoped(
        TENANT_CONTEXT,
        [QUEUE_MESSAGE],
        (message) => {
          events.push(`tenant of ${message.id === ids.done ? 'done' : 'failed'}: ${currentTenant()}`);
          return new TenantContext(currentTenant());
        },
        { dispose: (t) => void events.push(`disposed ${t.tenantId}`) },
      )
      .build();
    const db = running.app.database;
    const fulfilment = new FulfilmentWorker({
      db,
      queue: new MemoryBroker().connect({ name: 'scope-test', maxAttempts: 1 }),
      prefetch: 1,
      log: captureLog().log,
      clock: running.app.clock,
      addresses: addresses ?? new DatabaseDeliveryAddresses(db),
      scopes,
    });
    return { fulfilment, events };
  }

  // Message ids are uuids (the fulfilments table's key).
  const ids = { done: randomUUID(), failed: randomUUID() };
  const message = (id: string, headers: Record<string, string>, body: unknown) => ({
    id,
    headers,
    attempt: 1,
    body: Buffer.from(JSON.stringify(body)),
  });
  const draft = {
    type: 'order.changed',
    order: { orderId: 'ord-s', customerId: 'cust-s', status: 'draft', lines: [], total: 0, version: 1 },
  };

  it("takes the message's tenant from its scope and disposes the scope when the message is done", async () => {
    const { fulfilment, events } = worker();

    await fulfilment.handle(message(ids.done, { tenant_id: 'acme' }, draft));

    expect(events).toEqual(['tenant of done: acme', 'disposed acme']);
    const rows = await running.app.database.withTenant('acme', (sql) =>
      sql.query<{ message_id: string }>('select message_id from fulfilments where message_id = $1', [ids.done]),
    );
    expect(rows.rows).toHaveLength(1);
  });

  it('disposes the scope of a message whose handling fails', async () => {
    const { fulfilment, events } = worker({
      get: async () => {
        throw new Error('the address book is down');
      },
    });
    const confirmed = { ...draft, order: { ...draft.order, orderId: 'ord-f', status: 'confirmed' } };

    await expect(fulfilment.handle(message(ids.failed, { tenant_id: 'acme' }, confirmed))).rejects.toThrow(
      /the address book is down/,
    );

    expect(events).toEqual(['tenant of failed: acme', 'disposed acme']);
  });
});
