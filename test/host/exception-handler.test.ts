import { describe, expect, it } from 'vitest';
import { HubError } from '../../src/host/errors.js';
import type { ExceptionHook } from '../../src/host/pipeline/exception-handler.js';
import type { WebApplication } from '../../src/host/pipeline/web-application.js';
import { expectProblem } from './support/expect-problem.js';
import { testServer } from './support/test-server.js';

interface Runs {
  outer: number;
  inner: { path: string; endpoint: unknown }[];
}

/** outer middleware → exception handler → inner middleware → routing → endpoints. */
function app(
  options: { hooks?: ExceptionHook[]; development?: boolean; configure?: (web: WebApplication) => void } = {},
) {
  const runs: Runs = { outer: 0, inner: [] };
  const server = testServer(
    (web) => {
      web.use(async (ctx, next) => {
        runs.outer += 1;
        await next(ctx);
      });
      web.useExceptionHandler({ hooks: options.hooks ?? [] });
      web.use(async (ctx, next) => {
        runs.inner.push({ path: ctx.path, endpoint: ctx.endpoint });
        await next(ctx);
      });
      web.useRouting();
      web.routes.get('/boom', ({ http }) => {
        http.response.setHeader('x-partial', 'written before the throw');
        throw new Error('database password=hunter2 rejected');
      });
      web.routes.get('/bad-cursor', () => {
        throw new HubError('DEVICES_BAD_CURSOR', 'The cursor is not valid.');
      });
      options.configure?.(web);
    },
    { development: options.development ?? false },
  );
  return { ...server, runs };
}

describe('exception handler', () => {
  it('offers the exception to each registered hook; a hook that handles it writes the response', async () => {
    const offered: unknown[] = [];
    const { server, runs } = app({
      hooks: [
        (_ctx, error) => {
          offered.push(error);
          return false;
        },
        (ctx, error) => {
          ctx.response.clear();
          ctx.response.status = 409;
          ctx.response.body = `handled: ${(error as Error).message.split(' ')[0]}`;
          return true;
        },
      ],
    });

    const res = await server.inject('/boom');

    expect(res.statusCode).toBe(409);
    expect(res.body).toBe('handled: database');
    expect(offered).toHaveLength(1);
    expect(runs.inner).toHaveLength(1);
  });

  it('when no hook handles it, clears the response and the endpoint and re-executes the later pipeline at /error; middleware before it runs once', async () => {
    const { server, runs } = app();

    const res = await server.inject('/boom');

    expectProblem(res, 500, 'HUB_ERR_HTTP_INTERNAL', '/boom');
    expect(res.headers['x-partial']).toBeUndefined();
    expect(runs.outer).toBe(1);
    expect(runs.inner).toEqual([
      { path: '/boom', endpoint: null },
      { path: '/error', endpoint: null },
    ]);
  });

  it('a HubError keeps its status and code, and its message is the detail', async () => {
    const res = await app().server.inject('/bad-cursor?cursor=zzz');

    const problem = expectProblem(res, 400, 'HUB_ERR_DEVICES_BAD_CURSOR', '/bad-cursor');
    expect(problem.detail).toBe('The cursor is not valid.');
  });

  it('a failure during re-execution still answers a 500 problem', async () => {
    const { server } = app({
      configure: (web) =>
        web.use(async (ctx, next) => {
          if (ctx.path === '/error') throw new HubError('RATE_LIMITED', 'limited on the error path too');
          await next(ctx);
        }),
    });

    const res = await server.inject('/boom');

    expectProblem(res, 500, 'HUB_ERR_HTTP_INTERNAL', '/boom');
  });

  it('no stack trace or internal message outside Development', async () => {
    const res = await app({ development: false }).server.inject('/boom');

    const problem = expectProblem(res, 500, 'HUB_ERR_HTTP_INTERNAL');
    expect(problem.stack).toBeUndefined();
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toMatch(/\bat .*\.(js|ts):\d+/);
  });

  it('in Development the problem carries the message and stack', async () => {
    const res = await app({ development: true }).server.inject('/boom');

    const problem = expectProblem(res, 500, 'HUB_ERR_HTTP_INTERNAL');
    expect(problem.detail).toContain('rejected');
    expect(problem.stack).toEqual(expect.stringContaining('Error: database'));
  });

  it('the error path asked for directly is not found', async () => {
    const res = await app().server.inject('/error');
    expectProblem(res, 404, 'HUB_ERR_HTTP_NOT_FOUND', '/error');
  });
});
