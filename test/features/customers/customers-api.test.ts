import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../../support/app-harness.js';

const ADDRESS = {
  recipient: 'Grace Hopper',
  line1: '1 Harbour Way',
  city: 'Arlington',
  region: 'VA',
  postalCode: '22201',
  country: 'US',
};
const tooLong = (max: number) => `must NOT have more than ${max} characters`;

/** The customers API over real HTTP, in-process on the embedded database (what `npm start` runs). */
describe('customers API (embedded database)', () => {
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

  const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      cache: res.headers.get('cache-control'),
      body: text ? JSON.parse(text) : undefined,
    };
  };

  it('sales: PUT creates the lead (201), replaces it (200); GET reads it; absent optional fields are null', async () => {
    let res = await call('PUT', '/v1/customers/cust-1/sales', buyer, {
      name: 'Ada',
      email: 'ada@example.com',
      stage: 'new',
    });
    expect([res.status, res.cache]).toEqual([201, 'private, no-store']);
    expect(res.body).toMatchObject({
      customerId: 'cust-1',
      name: 'Ada',
      company: null,
      email: 'ada@example.com',
      stage: 'new',
      version: 1,
    });
    res = await call('PUT', '/v1/customers/cust-1/sales', buyer, {
      name: 'Ada',
      company: 'Engines Ltd',
      stage: 'proposal',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ company: 'Engines Ltd', email: null, stage: 'proposal', version: 2 });
    expect((await call('GET', '/v1/customers/cust-1/sales', reader)).body).toEqual(res.body);
  });

  it('fulfilment: PUT and GET the delivery address', async () => {
    let res = await call('PUT', '/v1/customers/cust-1/fulfilment', buyer, { deliveryAddress: ADDRESS });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      customerId: 'cust-1',
      deliveryAddress: { ...ADDRESS, line2: null, phone: null },
      version: 1,
    });
    res = await call('GET', '/v1/customers/cust-1/fulfilment', reader);
    expect([res.status, res.body.deliveryAddress.city]).toEqual([200, 'Arlington']);
  });

  it('billing: account, payments (idempotent by id, 409 on other values), the history in cursor pages', async () => {
    expect(
      (await call('PUT', '/v1/customers/cust-1/billing/payments/pay-1', buyer, { amount: 100, paidOn: '2025-01-01' }))
        .body.code,
    ).toBe('HUB_ERR_CUSTOMERS_NOT_FOUND');
    let res = await call('PUT', '/v1/customers/cust-1/billing', buyer, { creditLimit: 500000, currency: 'EUR' });
    expect([res.status, res.body]).toEqual([
      201,
      { customerId: 'cust-1', creditLimit: 500000, currency: 'EUR', paymentCount: 0, version: 1 },
    ]);
    for (let i = 1; i <= 3; i++) {
      res = await call('PUT', `/v1/customers/cust-1/billing/payments/pay-${i}`, buyer, {
        amount: i * 1000,
        paidOn: `2025-02-0${i}`,
        reference: `INV-${i}`,
      });
      expect([res.status, res.body]).toEqual([
        201,
        { paymentId: `pay-${i}`, amount: i * 1000, paidOn: `2025-02-0${i}`, reference: `INV-${i}` },
      ]);
    }
    res = await call('PUT', '/v1/customers/cust-1/billing/payments/pay-2', buyer, {
      amount: 2000,
      paidOn: '2025-02-02',
      reference: 'INV-2',
    });
    expect(res.status).toBe(200);
    res = await call('PUT', '/v1/customers/cust-1/billing/payments/pay-2', buyer, {
      amount: 2001,
      paidOn: '2025-02-02',
      reference: 'INV-2',
    });
    expect([res.status, res.type, res.body.code, res.body.recorded?.amount]).toEqual([
      409,
      expect.stringMatching(/^application\/problem\+json/),
      'HUB_ERR_CUSTOMERS_PAYMENT_CONFLICT',
      2000,
    ]);
    res = await call('PUT', '/v1/customers/cust-1/billing/payments/pay-9', buyer, { amount: 1, paidOn: '2025-02-30' });
    expect([res.status, res.body.code, res.body.errors]).toEqual([
      422,
      'HUB_ERR_CUSTOMERS_INVALID',
      { paidOn: 'must be a calendar day, YYYY-MM-DD' },
    ]);
    expect((await call('GET', '/v1/customers/cust-1/billing', reader)).body).toMatchObject({
      paymentCount: 3,
      version: 4,
    });

    const first = await call('GET', '/v1/customers/cust-1/billing/payments?limit=2', reader);
    expect(first.body.items.map((p: { paymentId: string }) => p.paymentId)).toEqual(['pay-3', 'pay-2']);
    const second = await call(
      'GET',
      `/v1/customers/cust-1/billing/payments?limit=2&cursor=${first.body.nextCursor}`,
      reader,
    );
    expect([second.body.items.map((p: { paymentId: string }) => p.paymentId), second.body.nextCursor]).toEqual([
      ['pay-1'],
      null,
    ]);
    expect((await call('GET', '/v1/customers/cust-1/billing/payments?cursor=bm9wZQ', reader)).body.code).toBe(
      'HUB_ERR_CUSTOMERS_BAD_CURSOR',
    );

    res = await call('PUT', '/v1/customers/cust-1/billing', buyer, { creditLimit: 100, currency: 'USD' });
    expect([res.status, res.body.code]).toEqual([409, 'HUB_ERR_CUSTOMERS_CURRENCY_LOCKED']);
    expect(
      (await call('PUT', '/v1/customers/cust-1/billing', buyer, { creditLimit: 100, currency: 'EUR' })).body,
    ).toMatchObject({ creditLimit: 100, version: 5 });
  });

  it('support: tickets open (201), change (200), close for good (409 after); summary and history', async () => {
    let res = await call('PUT', '/v1/customers/cust-1/support/tickets/tk-1', buyer, {
      subject: 'Sensor silent',
      status: 'open',
      priority: 'high',
    });
    expect([res.status, res.body]).toEqual([
      201,
      expect.objectContaining({
        ticketId: 'tk-1',
        customerId: 'cust-1',
        description: null,
        closedAt: null,
        version: 1,
      }),
    ]);
    await call('PUT', '/v1/customers/cust-1/support/tickets/tk-2', buyer, {
      subject: 'Second',
      description: 'line one\nline two',
      status: 'pending',
      priority: 'low',
    });
    res = await call('PUT', '/v1/customers/cust-1/support/tickets/tk-1', buyer, {
      subject: 'Sensor silent',
      status: 'closed',
      priority: 'high',
    });
    expect([res.status, res.body.status, res.body.version]).toEqual([200, 'closed', 2]);
    res = await call('PUT', '/v1/customers/cust-1/support/tickets/tk-1', buyer, {
      subject: 'Again',
      status: 'open',
      priority: 'high',
    });
    expect([res.status, res.body.code]).toEqual([409, 'HUB_ERR_CUSTOMERS_TICKET_CLOSED']);
    expect((await call('GET', '/v1/customers/cust-1/support', reader)).body).toEqual({
      customerId: 'cust-1',
      ticketCount: 2,
      waitingTickets: 1,
    });
    expect((await call('GET', '/v1/customers/cust-1/support/tickets/tk-2', reader)).body.description).toBe(
      'line one\nline two',
    );
    const page = await call('GET', '/v1/customers/cust-1/support/tickets?limit=1', reader);
    expect(page.body.items.map((t: { ticketId: string }) => t.ticketId)).toEqual(['tk-2']);
    // A tickets cursor is no payments cursor.
    expect(
      (await call('GET', `/v1/customers/cust-1/billing/payments?cursor=${page.body.nextCursor}`, reader)).body.code,
    ).toBe('HUB_ERR_CUSTOMERS_BAD_CURSOR');
    const rest = await call('GET', `/v1/customers/cust-1/support/tickets?cursor=${page.body.nextCursor}`, reader);
    expect([rest.body.items.map((t: { ticketId: string }) => t.ticketId), rest.body.nextCursor]).toEqual([
      ['tk-1'],
      null,
    ]);
    expect((await call('GET', '/v1/customers/cust-1/support/tickets/nope', reader)).status).toBe(404);
  });

  it("another tenant's customer is 404 in every context, and the id is free there", async () => {
    for (const path of [
      'sales',
      'fulfilment',
      'billing',
      'billing/payments',
      'support',
      'support/tickets',
      'support/tickets/tk-1',
    ]) {
      const res = await call('GET', `/v1/customers/cust-1/${path}`, otherTenant);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'HUB_ERR_CUSTOMERS_NOT_FOUND']);
    }
    // A payment cannot land on acme's account from globex, even knowing the ids.
    expect(
      (
        await call('PUT', '/v1/customers/cust-1/billing/payments/pay-x', otherTenant, {
          amount: 1,
          paidOn: '2025-01-01',
        })
      ).status,
    ).toBe(404);
    const res = await call('PUT', '/v1/customers/cust-1/sales', otherTenant, { name: 'Globex own', stage: 'new' });
    expect([res.status, res.body.version]).toEqual([201, 1]);
    expect((await call('GET', '/v1/customers/cust-1/sales', buyer)).body.name).toBe('Ada');
  });

  it('only admin or buyer may write (403); no token is 401, for reads too', async () => {
    const writes: [string, unknown][] = [
      ['/v1/customers/c/sales', { name: 'x', stage: 'new' }],
      ['/v1/customers/c/fulfilment', { deliveryAddress: ADDRESS }],
      ['/v1/customers/c/billing', { creditLimit: 1, currency: 'EUR' }],
      ['/v1/customers/c/billing/payments/p', { amount: 1, paidOn: '2025-01-01' }],
      ['/v1/customers/c/support/tickets/t', { subject: 's', status: 'open', priority: 'low' }],
    ];
    for (const [path, body] of writes) {
      expect([path, (await call('PUT', path, reader, body)).status]).toEqual([path, 403]);
      expect([path, (await call('PUT', path, undefined, body)).status]).toEqual([path, 401]);
    }
    expect((await call('GET', '/v1/customers/cust-1/billing', undefined)).status).toBe(401);
    expect((await call('GET', '/v1/customers/c/sales', reader)).status).toBe(404);
  });

  it('every string has a length limit: over-long values are 400 naming each, and nothing is written', async () => {
    let res = await call('PUT', `/v1/customers/${'c'.repeat(65)}/sales`, buyer, {
      name: 'n'.repeat(201),
      company: 'c'.repeat(201),
      email: `${'e'.repeat(250)}@x.io`,
      stage: 'new',
    });
    expect([res.status, res.body.errors]).toEqual([
      400,
      { customerId: tooLong(64), name: tooLong(200), company: tooLong(200), email: tooLong(254) },
    ]);
    res = await call('PUT', '/v1/customers/long/fulfilment', buyer, {
      deliveryAddress: {
        recipient: 'r'.repeat(201),
        line1: 'l'.repeat(201),
        line2: 'l'.repeat(201),
        city: 'c'.repeat(101),
        region: 'r'.repeat(101),
        postalCode: 'p'.repeat(17),
        country: 'USA',
        phone: '1'.repeat(33),
      },
    });
    expect([res.status, Object.keys(res.body.errors).sort()]).toEqual([
      400,
      [
        'deliveryAddress.city',
        'deliveryAddress.country',
        'deliveryAddress.line1',
        'deliveryAddress.line2',
        'deliveryAddress.phone',
        'deliveryAddress.postalCode',
        'deliveryAddress.recipient',
        'deliveryAddress.region',
      ],
    ]);
    expect(res.body.errors['deliveryAddress.postalCode']).toBe(tooLong(16));
    res = await call('PUT', '/v1/customers/long/billing', buyer, { creditLimit: 1, currency: 'EURO' });
    expect(res.body.errors).toEqual({ currency: tooLong(3) });
    res = await call('PUT', `/v1/customers/long/billing/payments/${'p'.repeat(65)}`, buyer, {
      amount: 1,
      paidOn: '2025-01-011',
      reference: 'r'.repeat(129),
    });
    expect(res.body.errors).toEqual({ paymentId: tooLong(64), paidOn: tooLong(10), reference: tooLong(128) });
    res = await call('PUT', `/v1/customers/long/support/tickets/${'t'.repeat(65)}`, buyer, {
      subject: 's'.repeat(201),
      description: 'd'.repeat(4001),
      status: 'open',
      priority: 'low',
    });
    expect(res.body.errors).toEqual({ ticketId: tooLong(64), subject: tooLong(200), description: tooLong(4000) });
    expect(
      (await call('GET', `/v1/customers/long/billing/payments?cursor=${'x'.repeat(65)}`, reader)).body.errors,
    ).toEqual({ cursor: tooLong(64) });
    for (const path of ['sales', 'fulfilment', 'billing', 'support'])
      expect((await call('GET', `/v1/customers/long/${path}`, reader)).status).toBe(404);
  });

  it('blank or multi-line values of one-line fields, unknown fields and bad enums are 400', async () => {
    const res = await call('PUT', '/v1/customers/c2/sales', buyer, {
      name: '   ',
      company: 'a\nb',
      stage: 'maybe',
      owner: 'me',
    });
    expect([res.status, Object.keys(res.body.errors).sort()]).toEqual([400, ['company', 'name', 'owner', 'stage']]);
    expect((await call('PUT', '/v1/customers/c2/sales', buyer, { name: '  Ada  ', stage: 'won' })).status).toBe(201);
  });

  it('/openapi/public.json describes every customers endpoint, tagged customers', async () => {
    const doc = (await (await fetch(`${running.url}/openapi/public.json`)).json()) as {
      info: { version: string };
      paths: Record<string, Record<string, { tags: string[] }>>;
    };
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods('/v1/customers/{customerId}/sales')).toEqual(['get', 'put']);
    expect(methods('/v1/customers/{customerId}/fulfilment')).toEqual(['get', 'put']);
    expect(methods('/v1/customers/{customerId}/billing')).toEqual(['get', 'put']);
    expect(methods('/v1/customers/{customerId}/billing/payments')).toEqual(['get']);
    expect(methods('/v1/customers/{customerId}/billing/payments/{paymentId}')).toEqual(['put']);
    expect(methods('/v1/customers/{customerId}/support')).toEqual(['get']);
    expect(methods('/v1/customers/{customerId}/support/tickets')).toEqual(['get']);
    expect(methods('/v1/customers/{customerId}/support/tickets/{ticketId}')).toEqual(['get', 'put']);
    expect(doc.info.version).toBe('1.4.0');
  });
});
