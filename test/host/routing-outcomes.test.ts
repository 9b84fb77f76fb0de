import { describe, expect, it } from 'vitest';
import { expectProblem } from './support/expect-problem.js';
import { testServer } from './support/test-server.js';

/** The composition's layout: exception handler first, then the routing position. */
function app(bodyLimitBytes?: number) {
  return testServer(
    (web) => {
      web.useExceptionHandler();
      web.useRouting();
      web.routes.get('/items/{id:int}', ({ http }) => ({ id: http.routeValues.id }));
      web.routes.delete('/items/{id:int}', () => ({ deleted: true }));
      web.routes.get('/items/new', () => ({ literal: true }));
      web.routes.post('/items', ({ http }) => ({ bytes: http.body?.length ?? 0 }), { accepts: ['application/json'] });
      web.routes.get('/twins/{a}', () => 'first');
      web.routes.get('/twins/{b}', () => 'second');
      web.routes.get('/ordered/{a}', () => ({ winner: 'order -1' }), { order: -1 });
      web.routes.get('/ordered/fixed', () => ({ winner: 'literal' }));
    },
    bodyLimitBytes === undefined ? {} : { bodyLimitBytes },
  );
}

describe('routing outcomes', () => {
  it('no template fits the path → 404 problem', async () => {
    const res = await app().server.inject('/nothing/here');
    expectProblem(res, 404, 'HUB_ERR_HTTP_NOT_FOUND', '/nothing/here');
  });

  it('a constraint that rejects the only fitting template → 404 problem', async () => {
    const res = await app().server.inject('/items/abc');
    expectProblem(res, 404, 'HUB_ERR_HTTP_NOT_FOUND');
  });

  it('the path fits but no candidate accepts the method → 405 problem with Allow', async () => {
    const res = await app().server.inject({ method: 'PUT', url: '/items/1' });
    expectProblem(res, 405, 'HUB_ERR_HTTP_METHOD_NOT_ALLOWED', '/items/1');
    expect(res.headers.allow).toBe('DELETE, GET, HEAD');
  });

  it('a method the server does not route at all still gets 405 problem with Allow', async () => {
    const res = await app().server.inject({ method: 'PROPFIND', url: '/items/1' });
    expectProblem(res, 405, 'HUB_ERR_HTTP_METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('DELETE, GET, HEAD');
  });

  it('the path fits but no candidate accepts the body content type → 415 problem', async () => {
    const res = await app().server.inject({
      method: 'POST',
      url: '/items',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expectProblem(res, 415, 'HUB_ERR_HTTP_UNSUPPORTED_MEDIA_TYPE', '/items');
  });

  it('an accepted content type (with parameters) reaches the endpoint', async () => {
    const res = await app().server.inject({
      method: 'POST',
      url: '/items',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"a":1}',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ bytes: 7 });
  });

  it('two candidates tie → 500 problem and an error log naming both', async () => {
    const { server, logs } = app();

    const res = await server.inject('/twins/x');

    expectProblem(res, 500, 'HUB_ERR_HTTP_AMBIGUOUS_ROUTE', '/twins/x');
    const log = logs().find((l) => l.msg === 'ambiguous route match');
    expect(log).toMatchObject({ level: 50, candidates: ['GET,HEAD /twins/{a}', 'GET,HEAD /twins/{b}'] });
  });

  it('the best survivor wins by order, then precedence (a literal beats a parameter)', async () => {
    const { server } = app();
    expect((await server.inject('/items/new')).json()).toEqual({ literal: true });
    expect((await server.inject('/items/5')).json()).toEqual({ id: '5' });
    expect((await server.inject('/ordered/fixed')).json()).toEqual({ winner: 'order -1' });
  });

  it('a body over the server body limit → 413 problem', async () => {
    const res = await app(1024).server.inject({
      method: 'POST',
      url: '/items',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(2048) }),
    });
    expectProblem(res, 413, 'HUB_ERR_HTTP_BODY_TOO_LARGE', '/items');
  });
});
