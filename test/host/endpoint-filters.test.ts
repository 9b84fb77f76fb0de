import { describe, expect, it } from 'vitest';
import type { BindOutcome, EndpointFilter } from '../../src/host/pipeline/endpoint.js';
import type { HttpContext } from '../../src/host/pipeline/http-context.js';
import { Results } from '../../src/host/pipeline/results.js';
import { expectProblem } from './support/expect-problem.js';
import { testServer } from './support/test-server.js';

function recording(name: string, trace: string[]): EndpointFilter {
  return async (ictx, next) => {
    trace.push(`${name}>`);
    const result = await next();
    // Nothing is written while the filters unwind: the result is executed after the outermost one.
    trace.push(`<${name} (written: ${ictx.http.response.body !== null})`);
    return result;
  };
}

describe('endpoint filters', () => {
  it('run outer group → inner group → endpoint → handler and back, and only then is the result written', async () => {
    const trace: string[] = [];
    const { server } = testServer((web) => {
      const outer = web.routes.group('/api').addFilter(recording('outer', trace));
      const inner = outer.group('/v1').addFilter(recording('inner', trace));
      inner.get(
        '/things',
        () => {
          trace.push('handler');
          return Results.json({ made: true }, 201);
        },
        { filters: [recording('endpoint', trace)] },
      );
    });

    const res = await server.inject('/api/v1/things');

    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ made: true });
    expect(trace).toEqual([
      'outer>',
      'inner>',
      'endpoint>',
      'handler',
      '<endpoint (written: false)',
      '<inner (written: false)',
      '<outer (written: false)',
    ]);
  });

  it('a group filter can replace the result on the way out', async () => {
    const { server } = testServer((web) => {
      web.routes
        .group('/api')
        .addFilter(async (_ictx, next) => {
          const result = await next();
          return result.status === 201 ? Results.json({ wrapped: true }, 200) : result;
        })
        .get('/things', () => Results.json({ made: true }, 201));
    });

    const res = await server.inject('/api/things');

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ wrapped: true });
  });

  it('a group filter added after its endpoints still runs around them', async () => {
    const trace: string[] = [];
    const { server } = testServer((web) => {
      const group = web.routes.group('/api');
      group.get('/late', () => trace.push('handler'));
      group.addFilter(recording('late-filter', trace));
    });

    await server.inject('/api/late');

    expect(trace[0]).toBe('late-filter>');
  });
});

interface Args {
  id: number;
  limit: number;
  tenant: string;
}

function bindArgs(ctx: HttpContext): BindOutcome<Args> {
  const errors: Record<string, string> = {};
  const id = Number(ctx.routeValues.id);
  const limit = Number(ctx.query.get('limit') ?? '10');
  const tenant = ctx.headers['x-tenant'];
  if (!Number.isInteger(id)) errors.id = 'must be an integer';
  if (!Number.isInteger(limit)) errors.limit = 'must be an integer';
  if (typeof tenant !== 'string' || tenant === '') errors['x-tenant'] = 'is required';
  return Object.keys(errors).length > 0
    ? { ok: false, errors }
    : { ok: true, value: { id, limit, tenant: tenant as string } };
}

describe('parameter binding', () => {
  const setup = () => {
    const trace: string[] = [];
    const { server } = testServer((web) => {
      web.routes.get(
        '/items/{id}',
        ({ args }) => {
          trace.push('handler');
          return args;
        },
        {
          bind: bindArgs,
          filters: [
            async (ictx, next) => {
              trace.push(
                `filter sees ${ictx.http.response.status} ${Object.keys(ictx.bindingErrors ?? {}).join(',')}`.trim(),
              );
              return next();
            },
          ],
        },
      );
    });
    return { server, trace };
  };

  it.each([
    ['route', '/items/abc', { 'x-tenant': 'demo' }, 'id'],
    ['query', '/items/1?limit=ten', { 'x-tenant': 'demo' }, 'limit'],
    ['header', '/items/1', {}, 'x-tenant'],
  ])(
    'a %s value that fails to bind answers 400; the filters still run and the handler is skipped',
    async (_where, url, headers, field) => {
      const { server, trace } = setup();

      const res = await server.inject({ url, headers });

      const problem = expectProblem(res, 400, 'HUB_ERR_HTTP_BAD_REQUEST', url.split('?')[0]);
      expect(problem.errors).toEqual({ [field]: expect.any(String) });
      expect(trace).toEqual([`filter sees 400 ${field}`]);
    },
  );

  it('values that bind reach the handler', async () => {
    const { server, trace } = setup();

    const res = await server.inject({ url: '/items/7?limit=3', headers: { 'x-tenant': 'demo' } });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 7, limit: 3, tenant: 'demo' });
    expect(trace).toEqual(['filter sees 200', 'handler']);
  });
});
