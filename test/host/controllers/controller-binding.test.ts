import { describe, expect, it } from 'vitest';
import { mapController } from '../../../src/host/controllers/map-controller.js';
import { ServiceCollection } from '../../../src/host/container/service-collection.js';
import { serviceKey } from '../../../src/host/container/service-key.js';
import { Errors } from '../../../src/host/errors.js';
import type { Binder } from '../../../src/host/pipeline/endpoint.js';
import { Results } from '../../../src/host/pipeline/results.js';
import { testServer } from '../support/test-server.js';

const CONTROLLER = serviceKey<{ take: (v: string) => string }>('uploads');

/** A binder that reads the body (as the firmware form does): asynchronous, with its own refusal and a value to release. */
function app() {
  const log: string[] = [];
  const bind: Binder<string> = async (http) => {
    await new Promise((resolve) => setImmediate(resolve));
    const size = Number(http.query.get('size'));
    if (size > 10)
      return {
        ok: false,
        errors: { file: 'is too large' },
        result: Results.problem(Errors.HTTP_BODY_TOO_LARGE, 'The upload is too large.'),
      };
    return { ok: true, value: `file of ${size}`, dispose: () => void log.push('released') };
  };
  const services = new ServiceCollection()
    .transient(CONTROLLER, [], () => ({ take: (v: string) => (log.push(`took ${v}`), v) }))
    .build();
  const { server } = testServer(
    (web) => {
      mapController(web.routes, {
        name: 'Uploads',
        controller: CONTROLLER,
        filters: {
          result: [
            async (_ctx, next) => {
              await next();
              log.push('executed');
            },
          ],
        },
        actions: [
          {
            name: 'upload',
            method: 'POST',
            template: '/upload',
            options: { bind },
            invoke: (c, v: string) => ({ took: c.take(v) }),
          },
        ],
      });
    },
    { services },
  );
  return { server, log };
}

describe('controller model binding that reads the body', () => {
  it('waits for the binder, and releases the bound value after the result was executed', async () => {
    const { server, log } = app();

    const res = await server.inject({ method: 'POST', url: '/upload?size=3' });

    expect(res.json()).toEqual({ took: 'file of 3' });
    expect(log).toEqual(['took file of 3', 'executed', 'released']);
  });

  it("answers with the binder's own refusal (413), the action skipped", async () => {
    const { server, log } = app();

    const res = await server.inject({ method: 'POST', url: '/upload?size=99' });

    expect(res.statusCode).toBe(413);
    expect(log).toEqual(['executed']);
  });
});
