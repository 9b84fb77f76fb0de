import { describe, expect, it } from 'vitest';
import { Results } from '../../src/host/pipeline/results.js';
import { testServer } from './support/test-server.js';

describe('pipeline semantics', () => {
  it('onion order: code before next runs in registration order, code after it in reverse', async () => {
    const trace: string[] = [];
    const { server } = testServer((web) => {
      for (const name of ['a', 'b', 'c']) {
        web.use(async (ctx, next) => {
          trace.push(`${name}>`);
          await next(ctx);
          trace.push(`<${name}`);
        });
      }
      web.routes.get('/x', () => {
        trace.push('endpoint');
        return { ok: true };
      });
    });

    const res = await server.inject('/x');

    expect(res.statusCode).toBe(200);
    expect(trace).toEqual(['a>', 'b>', 'c>', 'endpoint', '<c', '<b', '<a']);
  });

  it('short-circuit: later middleware and the endpoint do not run, and the response still unwinds through earlier middleware', async () => {
    const trace: string[] = [];
    const { server } = testServer((web) => {
      web.use(async (ctx, next) => {
        trace.push('a>');
        await next(ctx);
        trace.push(`<a saw ${ctx.response.status}`);
        ctx.response.setHeader('x-seen-by-a', 'yes');
      });
      web.use(async (ctx) => {
        trace.push('b answers');
        Results.text('closed for maintenance', 503).execute(ctx);
      });
      web.use(async (ctx, next) => {
        trace.push('c');
        await next(ctx);
      });
      web.routes.get('/x', () => trace.push('endpoint'));
    });

    const res = await server.inject('/x');

    expect(res.statusCode).toBe(503);
    expect(res.body).toBe('closed for maintenance');
    expect(res.headers['x-seen-by-a']).toBe('yes');
    expect(trace).toEqual(['a>', 'b answers', '<a saw 503']);
  });

  it('conditional branch (useWhen): when the predicate holds the branch runs and the request rejoins the main pipeline; otherwise it goes straight on', async () => {
    let trace: string[] = [];
    const { server } = testServer((web) => {
      web.use(async (ctx, next) => {
        trace.push('a');
        await next(ctx);
      });
      web.useWhen(
        (ctx) => ctx.headers['x-branch'] === 'yes',
        (branch) =>
          branch.use(async (ctx, next) => {
            trace.push('branch>');
            await next(ctx);
            trace.push('<branch');
          }),
      );
      web.use(async (ctx, next) => {
        trace.push('c');
        await next(ctx);
      });
      web.routes.get('/x', () => trace.push('endpoint'));
    });

    await server.inject({ url: '/x', headers: { 'x-branch': 'yes' } });
    expect(trace).toEqual(['a', 'branch>', 'c', 'endpoint', '<branch']);

    trace = [];
    await server.inject('/x');
    expect(trace).toEqual(['a', 'c', 'endpoint']);
  });

  it('path-map branch (map): runs its terminal delegate, never rejoins, and moves the matched segment from path to pathBase', async () => {
    const trace: string[] = [];
    const { server } = testServer((web) => {
      web.map('/files', (branch) =>
        branch.run(async (ctx) => {
          trace.push('terminal');
          Results.json({ pathBase: ctx.pathBase, path: ctx.path }).execute(ctx);
        }),
      );
      web.use(async (ctx, next) => {
        trace.push('main');
        await next(ctx);
      });
      web.routes.get('/files/{*rest}', () => trace.push('endpoint'));
      web.routes.get('/filesystem', () => ({ main: true }));
    });

    const inBranch = await server.inject('/Files/a/b.txt');
    expect(inBranch.json()).toEqual({ pathBase: '/Files', path: '/a/b.txt' });
    expect(trace).toEqual(['terminal']);

    // Whole segments only: /filesystem is not under /files.
    const outside = await server.inject('/filesystem');
    expect(outside.json()).toEqual({ main: true });
    expect(trace).toEqual(['terminal', 'main']);
  });

  it('path-map branch without a terminal of its own answers 404 problem, with the full path as instance', async () => {
    const { server } = testServer((web) => {
      web.map('/files', () => undefined);
      web.routes.get('/files/x', () => ({ main: true }));
    });

    const res = await server.inject('/files/x');

    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'HUB_ERR_HTTP_NOT_FOUND', instance: '/files/x' });
  });

  it('routing position: middleware before it sees no endpoint; middleware after it sees the endpoint and its metadata', async () => {
    const seen: Record<string, unknown> = {};
    const { server } = testServer((web) => {
      web.use(async (ctx, next) => {
        seen.before = ctx.endpoint;
        await next(ctx);
      });
      web.useRouting();
      web.use(async (ctx, next) => {
        seen.after = ctx.endpoint?.displayName;
        seen.policy = ctx.endpoint?.metadata.policy;
        seen.routeValues = ctx.routeValues;
        await next(ctx);
      });
      web.routes.get('/items/{id}', () => ({ ok: true }), { metadata: { policy: 'readers' } });
    });

    await server.inject('/items/42');

    expect(seen).toEqual({ before: null, after: 'GET,HEAD /items/{id}', policy: 'readers', routeValues: { id: '42' } });
  });
});
