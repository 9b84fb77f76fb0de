import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../../support/app-harness.js';

/** The orders API in-process on the embedded database and the in-process queue (what `npm start` runs). */
describe('orders API (embedded database, in-process queue)', () => {
  let running: RunningApp;
  let buyer: string;
  let reader: string;
  let otherTenant: string;
  beforeAll(async () => {
    running = await startApp();
    buyer = await userToken('acme', { sub: 'bob', roles: ['buyer'] });
    reader = await userToken('acme', { sub: 'rita' });
    otherTenant = await userToken('globex', { sub: 'gus', roles: ['admin'] });
  });
  afterAll(async () => running?.stop());

  const call = (method: string, path: string, token: string, body?: unknown, contentType = 'application/json') =>
    fetch(`${running.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  it('creates, edits and confirms an order; the total is the sum of the lines', async () => {
    let res = await call('PUT', '/api/orders/ord-1', buyer, {
      customerId: 'cust-7',
      lines: [{ sku: 'sensor-t1', quantity: 3, unitPrice: 1999 }],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      orderId: 'ord-1',
      customerId: 'cust-7',
      status: 'draft',
      lines: [{ sku: 'sensor-t1', quantity: 3, unitPrice: 1999 }],
      total: 5997,
      version: 1,
    });
    res = await call('PUT', '/api/orders/ord-1', buyer, {
      customerId: 'cust-7',
      lines: [
        { sku: 'sensor-t1', quantity: 2, unitPrice: 1999 },
        { sku: 'gw-2', quantity: 1, unitPrice: 24950 },
      ],
    });
    expect(await res.json()).toMatchObject({ total: 2 * 1999 + 24950, version: 2 });
    res = await call('POST', '/api/orders/ord-1/confirm', buyer);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'confirmed', version: 3 });
    expect(await (await call('GET', '/v1/orders/ord-1', reader)).json()).toMatchObject({
      status: 'confirmed',
      total: 2 * 1999 + 24950,
    });
  });

  it('a confirmed order refuses changes (409) and keeps its lines', async () => {
    await call('PUT', '/api/orders/ord-c', buyer, {
      customerId: 'c',
      lines: [{ sku: 'a', quantity: 1, unitPrice: 100 }],
    });
    await call('POST', '/api/orders/ord-c/confirm', buyer);
    const res = await call('PUT', '/api/orders/ord-c', buyer, { customerId: 'c', lines: [] });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await res.json()).code).toBe('HUB_ERR_ORDERS_CONFIRMED');
    expect((await (await call('GET', '/v1/orders/ord-c', reader)).json()).lines).toHaveLength(1);
  });

  it('an empty order cannot be confirmed (409); an unknown one is 404', async () => {
    await call('PUT', '/api/orders/ord-e', buyer, { customerId: 'c', lines: [] });
    const res = await call('POST', '/api/orders/ord-e/confirm', buyer);
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('HUB_ERR_ORDERS_EMPTY');
    expect((await (await call('POST', '/api/orders/nope/confirm', buyer)).json()).code).toBe(
      'HUB_ERR_ORDERS_NOT_FOUND',
    );
    expect((await call('GET', '/v1/orders/nope', reader)).status).toBe(404);
  });

  it('bad shapes are 400 naming the values, bad values 422 naming the fields', async () => {
    let res = await call('PUT', '/api/orders/ord-b', buyer, {
      customerId: 'c',
      lines: [{ sku: 'a', quantity: '2', unitPrice: 1 }],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors).toHaveProperty(['lines[0].quantity']);
    res = await call('PUT', '/api/orders/ord-b', buyer, {
      customerId: 'c',
      lines: [
        { sku: 'a', quantity: 0, unitPrice: 1 },
        { sku: 'a', quantity: 1, unitPrice: -5 },
      ],
    });
    expect(res.status).toBe(422);
    expect(Object.keys((await res.json()).errors).sort()).toEqual([
      'lines[0].quantity',
      'lines[1].sku',
      'lines[1].unitPrice',
    ]);
    expect((await call('GET', '/v1/orders/ord-b', reader)).status).toBe(404);
  });

  it('over-long strings are 400 naming the value, whatever rule they would break after', async () => {
    const tooLong = (max: number) => `must NOT have more than ${max} characters`;
    let res = await call('PUT', '/api/orders/ord-long', buyer, {
      customerId: 'c'.repeat(65),
      lines: [{ sku: 's'.repeat(65), quantity: 1, unitPrice: 1 }],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors).toEqual({ customerId: tooLong(64), 'lines[0].sku': tooLong(64) });
    res = await call('PUT', `/api/orders/${'o'.repeat(65)}`, buyer, { customerId: 'c', lines: [] });
    expect([res.status, (await res.json()).errors]).toEqual([400, { orderId: tooLong(64) }]);
    res = await call('GET', `/v1/orders/${'o'.repeat(65)}`, reader);
    expect([res.status, (await res.json()).errors]).toEqual([400, { orderId: tooLong(64) }]);
    expect((await call('GET', '/v1/orders/ord-long', reader)).status).toBe(404);
  });

  it('only admin or buyer may write (403); no token is 401', async () => {
    expect((await call('PUT', '/api/orders/ord-r', reader, { customerId: 'c', lines: [] })).status).toBe(403);
    expect(
      (
        await fetch(`${running.url}/api/orders/ord-r`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(401);
  });

  it("another tenant sees none of this tenant's orders and its id space is its own", async () => {
    expect((await call('GET', '/v1/orders/ord-1', otherTenant)).status).toBe(404);
    const res = await call('PUT', '/api/orders/ord-1', otherTenant, { customerId: 'g', lines: [] });
    expect(await res.json()).toMatchObject({ customerId: 'g', version: 1 });
    expect((await (await call('GET', '/v1/orders?offset=0&limit=50', otherTenant)).json()).total).toBe(1);
  });

  it('/openapi/public.json describes the orders and profile endpoints with the schemas they bind with', async () => {
    const doc = (await (await fetch(`${running.url}/openapi/public.json`)).json()) as {
      paths: Record<string, Record<string, any>>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/orders/{orderId}',
        '/api/orders/{orderId}/confirm',
        '/v1/orders',
        '/v1/orders/{orderId}',
        '/v1/profile',
      ]),
    );
    expect(Object.keys(doc.paths['/v1/profile']!).sort()).toEqual(['get', 'patch', 'put']);
    const body = doc.paths['/api/orders/{orderId}']!.put.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['customerId', 'lines']);
    expect(Object.keys(doc.paths)).not.toContain('/health/live');
  });

  it('the worker records each accepted change under the tenant of its message (and only there)', async () => {
    const db = running.app.database;
    const versions = (tenant: string) =>
      db
        .withTenant(tenant, (sql) =>
          sql.query<{ order_version: number; status: string }>(
            `select order_version, status from fulfilments where order_id = 'ord-1' order by order_version`,
          ),
        )
        .then((r) => r.rows.map((row) => [Number(row.order_version), row.status]));
    expect(
      await until(
        () => versions('acme'),
        (v) => v.length >= 3,
      ),
    ).toEqual([
      [1, 'draft'],
      [2, 'draft'],
      [3, 'confirmed'],
    ]);
    expect(
      await until(
        () => versions('globex'),
        (v) => v.length >= 1,
      ),
    ).toEqual([[1, 'draft']]);
    // No tenant: row-level security shows nothing at all.
    expect((await db.withSystem((sql) => sql.query(`select 1 from fulfilments`))).rows).toEqual([]);
  });
});

/** Polls `read` until `done` holds or 10 s pass; returns the last value (the assertion shows it). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}
