import { describe, expect, it } from 'vitest';
import type { ControllerContext, ControllerFilters } from '../../../src/host/controllers/controller-filters.js';
import { mapController, type ControllerAction } from '../../../src/host/controllers/map-controller.js';
import { ServiceCollection } from '../../../src/host/container/service-collection.js';
import { serviceKey } from '../../../src/host/container/service-key.js';
import type { Binder } from '../../../src/host/pipeline/endpoint.js';
import { Results, type Result } from '../../../src/host/pipeline/results.js';
import { testServer } from '../support/test-server.js';

/** Where each step throws, when the test asks (`?throw=<step>`). */
type Step = 'create' | 'bind' | 'action-filter' | 'action' | 'resource-filter' | 'result-filter' | 'execute';

class Greeter {
  constructor(readonly log: string[]) {}
  greet(name: string, ctx: ControllerContext): Result {
    this.log.push('action');
    throwAt(ctx, 'action');
    return {
      status: 200,
      execute: (http) => (
        this.log.push('execute'), throwAt(ctx, 'execute'), Results.json({ hello: name }).execute(http)
      ),
    };
  }
}

const GREETER = serviceKey<Greeter>('greeter');
const LOG = serviceKey<string[]>('log');

function throwAt(ctx: ControllerContext, step: Step): void {
  if (ctx.http.query.get('throw') === step) throw new Error(`thrown by ${step}`);
}

/** Every kind of filter at every level, each recording itself. */
function recording(level: string, log: string[], extra: ControllerFilters = {}): ControllerFilters {
  return {
    authorization: [
      (ctx) => {
        log.push(`${level} authorization`);
        return ctx.http.query.get('deny') === level ? Results.json({ denied: level }, 403) : undefined;
      },
    ],
    resource: [
      async (ctx, next) => {
        log.push(`${level} resource before`);
        if (level === 'action') throwAt(ctx, 'resource-filter');
        if (ctx.http.query.get('cached') === level) {
          ctx.result = Results.json({ cached: level });
          return;
        }
        await next();
        log.push(`${level} resource after`);
      },
    ],
    action: [
      async (ctx, next) => {
        log.push(`${level} action before${ctx.bindingErrors ? ' (binding failed)' : ''}`);
        if (level === 'action') throwAt(ctx, 'action-filter');
        if (ctx.http.query.get('skip') === level) return Results.json({ skipped: level });
        const result = await next();
        log.push(`${level} action after`);
        return result;
      },
    ],
    result: [
      async (ctx, next) => {
        log.push(`${level} result before`);
        if (level === 'action') throwAt(ctx, 'result-filter');
        await next();
        log.push(`${level} result after`);
      },
    ],
    exception: [
      (ctx, error) => {
        log.push(`${level} exception: ${(error as Error).message}`);
        return ctx.http.query.get('handle') === level
          ? Results.json({ handled: (error as Error).message }, 409)
          : undefined;
      },
    ],
    ...extra,
  };
}

function app() {
  const log: string[] = [];
  const services = new ServiceCollection()
    .instance(LOG, log)
    .transient(
      GREETER,
      [LOG],
      (l) => {
        l.push('create controller');
        if (currentQuery?.get('throw') === 'create') throw new Error('thrown by create');
        return new Greeter(l);
      },
      { dispose: () => void log.push('dispose controller') },
    )
    .build();
  let currentQuery: URLSearchParams | undefined;
  const bind: Binder<{ name: string }> = (http) => {
    log.push('bind');
    currentQuery = http.query;
    if (http.query.get('throw') === 'bind') throw new Error('thrown by bind');
    const name = http.routeValues.name!;
    return /^[a-z]+$/.test(name) ? { ok: true, value: { name } } : { ok: false, errors: { name: 'must be letters' } };
  };
  const greet: ControllerAction<Greeter, { name: string }> = {
    name: 'greet',
    method: 'GET',
    template: '/greet/{name}',
    options: { bind },
    filters: recording('action', log),
    invoke: (controller, args, ctx) => controller.greet(args.name, ctx),
  };
  const server = testServer(
    (web) => {
      web.useExceptionHandler();
      web.use(async (ctx, next) => {
        // Controller creation reads the query through the binder; record it before the pipeline.
        currentQuery = ctx.query;
        await next(ctx);
      });
      web.useRouting();
      mapController(
        web.routes,
        { name: 'Greeter', controller: GREETER, filters: recording('controller', log), actions: [greet] },
        recording('global', log),
      );
    },
    { services },
  ).server;
  return { server, log };
}

const PIPELINE = [
  'global authorization',
  'controller authorization',
  'action authorization',
  'global resource before',
  'controller resource before',
  'action resource before',
  'create controller',
  'bind',
  'global action before',
  'controller action before',
  'action action before',
  'action',
  'action action after',
  'controller action after',
  'global action after',
  'global result before',
  'controller result before',
  'action result before',
  'execute',
  'action result after',
  'controller result after',
  'global result after',
  'action resource after',
  'controller resource after',
  'global resource after',
  'dispose controller',
];

describe('the controller filter pipeline', () => {
  it('runs authorization, resource, binding, action and result filters in order, global → controller → action', async () => {
    const { server, log } = app();

    const res = await server.inject('/greet/ada');

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ hello: 'ada' });
    expect(log).toEqual(PIPELINE);
  });

  it('on a failed binding runs the action filters but not the action, and answers 400 naming the value', async () => {
    const { server, log } = app();

    const res = await server.inject('/greet/4da');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'HUB_ERR_HTTP_BAD_REQUEST', errors: { name: 'must be letters' } });
    expect(log).not.toContain('action');
    expect(log).toContain('action action before (binding failed)');
    expect(log).toContain('global result after');
  });

  it('an authorization filter that denies stops everything after it', async () => {
    const { server, log } = app();

    const res = await server.inject('/greet/ada?deny=controller');

    expect(res.statusCode).toBe(403);
    expect(log).toEqual(['global authorization', 'controller authorization']);
  });

  it('a resource filter that short-circuits skips the controller, and its result runs without result filters', async () => {
    const { server, log } = app();

    const res = await server.inject('/greet/ada?cached=controller');

    expect(res.json()).toEqual({ cached: 'controller' });
    expect(log).toEqual([
      ...PIPELINE.slice(0, 3),
      'global resource before',
      'controller resource before',
      'global resource after',
    ]);
  });

  it('an action filter that short-circuits skips the action; result filters still run', async () => {
    const { server, log } = app();

    const res = await server.inject('/greet/ada?skip=controller');

    expect(res.json()).toEqual({ skipped: 'controller' });
    expect(log).not.toContain('action');
    expect(log).toContain('global result before');
  });

  for (const step of ['create', 'bind', 'action-filter', 'action'] as const) {
    it(`exception filters catch what ${step} throws; the handled result runs without result filters`, async () => {
      const { server, log } = app();

      const res = await server.inject(`/greet/ada?throw=${step}&handle=controller`);

      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ handled: `thrown by ${step}` });
      // Outer to inner, as the other kinds; the first that returns a result handles it.
      expect(log.filter((l) => l.includes('exception'))).toEqual([
        `global exception: thrown by ${step}`,
        `controller exception: thrown by ${step}`,
      ]);
      expect(log.some((l) => l.includes('result before'))).toBe(false);
      expect(log).toContain('global resource after');
    });
  }

  it('an exception no filter handles goes on to the exception handler (500 problem)', async () => {
    const { server, log } = app();

    const res = await server.inject('/greet/ada?throw=action');

    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(log.filter((l) => l.includes('exception'))).toHaveLength(3);
    expect(log).toContain('dispose controller');
  });

  for (const step of ['resource-filter', 'result-filter', 'execute'] as const) {
    it(`exception filters never see what ${step === 'execute' ? 'result execution' : `a ${step}`} throws: it reaches the exception handler`, async () => {
      const { server, log } = app();

      const res = await server.inject(`/greet/ada?throw=${step}&handle=global`);

      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ code: 'HUB_ERR_HTTP_INTERNAL' });
      expect(log.some((l) => l.includes('exception'))).toBe(false);
    });
  }

  it('creates the controller in the request scope: it shares the scoped services the request resolved, and is disposed with it', async () => {
    const log: string[] = [];
    const UNIT = serviceKey<{ n: number }>('unit');
    const USER = serviceKey<{ unit: { n: number } }>('user');
    let made = 0;
    const services = new ServiceCollection()
      .scoped(UNIT, [], () => ({ n: ++made }), { dispose: (u) => void log.push(`dispose unit ${u.n}`) })
      .transient(USER, [UNIT], (unit) => ({ unit }), { dispose: () => void log.push('dispose controller') })
      .build();
    const { server } = testServer(
      (web) => {
        web.use(async (ctx, next) => {
          log.push(`middleware unit ${ctx.services.resolve(UNIT).n}`);
          await next(ctx);
        });
        mapController(web.routes, {
          name: 'User',
          controller: USER,
          actions: [
            { name: 'show', method: 'GET', template: '/unit', invoke: (controller) => ({ n: controller.unit.n }) },
          ],
        });
      },
      { services },
    );

    expect((await server.inject('/unit')).json()).toEqual({ n: 1 });
    expect((await server.inject('/unit')).json()).toEqual({ n: 2 });
    expect(log).toEqual([
      'middleware unit 1',
      'dispose controller',
      'dispose unit 1',
      'middleware unit 2',
      'dispose controller',
      'dispose unit 2',
    ]);
  });
});
