// Spec "Parameter binding and filters" 1 for binders that read the body (a form): bound before the
// filters, which see the value; a refusal with its own status skips the handler; what binding holds
// is released once the result is executed, whatever happened.
import { describe, expect, it } from 'vitest';
import { Errors } from '../../src/host/errors.js';
import type { BindOutcome, EndpointFilter } from '../../src/host/pipeline/endpoint.js';
import { Results } from '../../src/host/pipeline/results.js';
import { expectProblem } from './support/expect-problem.js';
import { testServer } from './support/test-server.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('a binder that reads the body', () => {
  it('is awaited before the filters: they see the bound value, and it is released after the result', async () => {
    const trace: string[] = [];
    const seen: unknown[] = [];
    const filter: EndpointFilter = async (ictx, next) => {
      seen.push(ictx.args);
      trace.push('filter');
      return next();
    };
    const { server } = testServer((web) => {
      web.routes.post<{ text: string }>('/forms', ({ args }) => (trace.push('handler'), { echo: args.text }), {
        filters: [filter],
        bind: async (ctx): Promise<BindOutcome<{ text: string }>> => {
          await tick();
          trace.push('bind');
          return {
            ok: true,
            value: { text: String(ctx.body) },
            dispose: () => void trace.push(`dispose (written: ${ctx.response.body !== null})`),
          };
        },
      });
    });
    const res = await server.inject({
      method: 'POST',
      url: '/forms',
      payload: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ echo: 'hello' });
    expect(seen).toEqual([{ text: 'hello' }]);
    expect(trace).toEqual(['bind', 'filter', 'handler', 'dispose (written: true)']);
  });

  it('refusing with its own answer (413) sets that status for the filters and skips the handler', async () => {
    let handled = 0;
    const observed: { status: number; errors: unknown }[] = [];
    const { server } = testServer((web) => {
      web.routes.post('/forms', () => (handled++, { ok: true }), {
        filters: [
          async (ictx, next) => {
            observed.push({ status: ictx.http.response.status, errors: ictx.bindingErrors });
            return next();
          },
        ],
        bind: async () => ({
          ok: false,
          errors: { form: 'too big' },
          result: Results.problem(Errors.HTTP_BODY_TOO_LARGE, 'too big', { limitBytes: 10 }),
        }),
      });
    });
    const res = await server.inject({
      method: 'POST',
      url: '/forms',
      payload: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(expectProblem(res, 413, 'HUB_ERR_HTTP_BODY_TOO_LARGE')).toMatchObject({ limitBytes: 10 });
    expect(observed).toEqual([{ status: 413, errors: { form: 'too big' } }]);
    expect(handled).toBe(0);
  });

  it('releases what it bound when the handler throws', async () => {
    let disposed = 0;
    const { server } = testServer((web) => {
      web.useExceptionHandler();
      web.routes.post(
        '/forms',
        () => {
          throw new Error('boom');
        },
        { bind: async () => ({ ok: true, value: 1, dispose: () => void disposed++ }) },
      );
    });
    const res = await server.inject({
      method: 'POST',
      url: '/forms',
      payload: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(500);
    expect(disposed).toBe(1);
  });
});
