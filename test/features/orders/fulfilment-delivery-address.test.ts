import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';

const ADDRESS = {
  recipient: 'Grace Hopper',
  line1: '1 Harbour Way',
  line2: null,
  city: 'Arlington',
  region: 'VA',
  postalCode: '22201',
  country: 'US',
  phone: null,
};

interface FulfilmentRow {
  order_version: number;
  status: string;
  customer_id: string;
  delivery: string | null;
  delivery_address: unknown;
}

/**
 * The worker fulfils a confirmed order with the delivery address the fulfilment context holds for
 * the order's customer (embedded database, in-process queue, the hub's own worker).
 */
describe('fulfilment worker: the delivery address, by customer id (in-process queue)', () => {
  let running: RunningApp;
  let buyer: string;
  beforeAll(async () => {
    running = await startApp();
    buyer = await userToken('acme', { sub: 'bob', roles: ['buyer'] });
  });
  afterAll(async () => running?.stop());

  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${running.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${buyer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then((r) => r.status);

  async function fulfilments(tenant: string, orderId: string, count: number): Promise<FulfilmentRow[]> {
    const read = () =>
      running.app.database
        .withTenant(tenant, (sql) =>
          sql.query<FulfilmentRow>(
            `select order_version, status, customer_id, delivery, delivery_address from fulfilments where order_id = $1 order by order_version`,
            [orderId],
          ),
        )
        .then((r) => r.rows);
    await eventually(async () => (await read()).length >= count, 10_000, `${count} fulfilments of ${orderId}`);
    return read();
  }

  async function placeAndConfirm(orderId: string, customerId: string): Promise<void> {
    expect(
      await send('PUT', `/api/orders/${orderId}`, {
        customerId,
        lines: [{ sku: 'gw-2', quantity: 1, unitPrice: 24950 }],
      }),
    ).toBe(200);
    expect(await send('POST', `/api/orders/${orderId}/confirm`)).toBe(200);
  }

  it("a confirmed order is fulfilled with a copy of its customer's address; the draft before it needs none", async () => {
    expect(await send('PUT', '/v1/customers/cust-w/fulfilment', { deliveryAddress: ADDRESS })).toBe(201);
    await placeAndConfirm('ord-w', 'cust-w');
    const rows = await fulfilments('acme', 'ord-w', 2);
    expect(rows.map((r) => [r.status, r.customer_id, r.delivery, r.delivery_address])).toEqual([
      ['draft', 'cust-w', null, null],
      ['confirmed', 'cust-w', 'addressed', ADDRESS],
    ]);
    // The customer moves: the fulfilled order keeps the address it shipped to.
    expect(
      await send('PUT', '/v1/customers/cust-w/fulfilment', {
        deliveryAddress: { ...ADDRESS, line1: '2 Other Street' },
      }),
    ).toBe(200);
    await placeAndConfirm('ord-w2', 'cust-w');
    expect((await fulfilments('acme', 'ord-w2', 2))[1]!.delivery_address).toMatchObject({ line1: '2 Other Street' });
    expect((await fulfilments('acme', 'ord-w', 2))[1]!.delivery_address).toMatchObject({ line1: '1 Harbour Way' });
  });

  it('with no address on file the order is recorded as held and a warning names order and customer; the message is handled, not retried', async () => {
    await placeAndConfirm('ord-h', 'cust-nowhere');
    const rows = await fulfilments('acme', 'ord-h', 2);
    expect(rows[1]).toMatchObject({
      status: 'confirmed',
      customer_id: 'cust-nowhere',
      delivery: 'no-address',
      delivery_address: null,
    });
    const held = running.logs.filter((l) => l.msg === 'confirmed order held: the customer has no delivery address');
    expect(held).toEqual([expect.objectContaining({ orderId: 'ord-h', customerId: 'cust-nowhere', tenantId: 'acme' })]);
  });

  it("the address is read under the message's tenant: another tenant's customer of the same id is not used", async () => {
    const other = await userToken('globex', { sub: 'gus', roles: ['admin'] });
    const put = (path: string, body: unknown) =>
      fetch(`${running.url}${path}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // globex knows an address for cust-g; acme orders for its own cust-g, which has none.
    expect((await put('/v1/customers/cust-g/fulfilment', { deliveryAddress: ADDRESS })).status).toBe(201);
    await placeAndConfirm('ord-g', 'cust-g');
    expect((await fulfilments('acme', 'ord-g', 2))[1]).toMatchObject({
      delivery: 'no-address',
      delivery_address: null,
    });
  });
});
