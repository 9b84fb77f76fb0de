import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../../support/app-harness.js';

/** Spec "Pagination": offset pages repeat an item when one is inserted at the front; cursor pages never do. */
describe('GET /v1/orders pages', () => {
  let running: RunningApp;
  let token: string;
  beforeAll(async () => {
    running = await startApp();
    token = await userToken('pages', { sub: 'p', roles: ['buyer'] });
    for (let i = 1; i <= 6; i++) await create(`o${i}`);
  });
  afterAll(async () => running?.stop());

  const create = async (id: string) => {
    const res = await fetch(`${running.url}/api/orders/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId: 'c', lines: [] }),
    });
    expect(res.status).toBe(200);
  };
  const get = async (query: string) => {
    const res = await fetch(`${running.url}/v1/orders?${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const ids = (page: { body: Record<string, any> }) => (page.body.items as { orderId: string }[]).map((o) => o.orderId);

  it('an offset page repeats an item when an order is created at the front between two requests', async () => {
    const first = await get('offset=0&limit=3');
    expect(first.body).toMatchObject({ offset: 0, limit: 3, total: 6 });
    expect(ids(first)).toEqual(['o6', 'o5', 'o4']);
    await create('front-1');
    const second = await get('offset=3&limit=3');
    expect(second.body.total).toBe(7);
    expect(ids(second)).toEqual(['o4', 'o3', 'o2']);
    expect(ids(second)).toContain(ids(first).at(-1)); // o4, seen twice
  });

  it('a cursor page continues after the last item: no repeat, no skip, whatever is created meanwhile', async () => {
    const seen: string[] = [];
    let page = await get('limit=3');
    expect(page.body).toHaveProperty('nextCursor');
    seen.push(...ids(page));
    let n = 0;
    while (page.body.nextCursor) {
      await create(`front-c${n++}`);
      page = await get(`limit=3&cursor=${encodeURIComponent(page.body.nextCursor as string)}`);
      seen.push(...ids(page));
    }
    expect(seen).toEqual(['front-1', 'o6', 'o5', 'o4', 'o3', 'o2', 'o1']);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("a tenant's cursors move with its own orders only: another tenant's writes leave no trace in them", async () => {
    const tokens = {
      a: await userToken('cursor-a', { sub: 'a', roles: ['buyer'] }),
      b: await userToken('cursor-b', { sub: 'b', roles: ['buyer'] }),
      c: await userToken('cursor-c', { sub: 'c', roles: ['buyer'] }),
    };
    const put = async (who: keyof typeof tokens, id: string) => {
      const res = await fetch(`${running.url}/api/orders/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens[who]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ customerId: 'c', lines: [] }),
      });
      expect(res.status).toBe(200);
    };
    const cursors = async (who: keyof typeof tokens) => {
      const out: string[] = [];
      let query = 'limit=1';
      for (;;) {
        const res = await fetch(`${running.url}/v1/orders?${query}`, {
          headers: { authorization: `Bearer ${tokens[who]}` },
        });
        const next = ((await res.json()) as { nextCursor: string | null }).nextCursor;
        if (next === null) return out;
        out.push(next);
        query = `limit=1&cursor=${encodeURIComponent(next)}`;
      }
    };
    // a and c write the same orders; b writes many between a's (and none between c's).
    for (let i = 1; i <= 3; i++) {
      await put('a', `x${i}`);
      for (let j = 0; j < 4; j++) await put('b', `b${i}-${j}`);
      await put('c', `x${i}`);
    }
    const [ofA, ofC] = [await cursors('a'), await cursors('c')];
    expect(ofA).toHaveLength(2);
    expect(ofA).toEqual(ofC);
    // b's own cursors say nothing of a and c either: the same as a's for its first orders.
    expect((await cursors('b')).slice(-2)).toEqual(ofA);
  });

  it('bad parameters are 400 problems naming them', async () => {
    expect((await get('limit=0')).body.errors).toEqual({ limit: 'must be an integer from 1 to 500' });
    expect((await get('offset=-1')).body.errors).toHaveProperty('offset');
    expect((await get('offset=0&cursor=abc')).body.errors).toHaveProperty('cursor');
    const bad = await get('cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('HUB_ERR_ORDERS_BAD_CURSOR');
    // A cursor of the old kind (a position over all tenants) is refused too.
    const old = await get(`cursor=${Buffer.from('o1:5').toString('base64url')}`);
    expect([old.status, old.body.code]).toEqual([400, 'HUB_ERR_ORDERS_BAD_CURSOR']);
    const long = await get(`cursor=${'A'.repeat(65)}`);
    expect([long.status, long.body.code]).toEqual([400, 'HUB_ERR_HTTP_BAD_REQUEST']);
    expect(long.body.errors).toEqual({ cursor: 'must NOT have more than 64 characters' });
  });
});
