import { describe, expect, it } from 'vitest';
import { expectProblem } from './support/expect-problem.js';
import { testServer } from './support/test-server.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

describe('traceparent', () => {
  it("a valid incoming traceparent's trace id is the problem's traceId and the request log's", async () => {
    const { server, logs } = testServer(() => undefined);

    const res = await server.inject({ url: '/nope', headers: { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01` } });

    expect(expectProblem(res, 404, 'HUB_ERR_HTTP_NOT_FOUND').traceId).toBe(TRACE_ID);
    expect(logs().find((l) => l.msg === 'request')).toMatchObject({ traceId: TRACE_ID });
  });

  it.each([
    ['malformed', `00-${TRACE_ID}-b7ad6b71`],
    ['all-zero trace id', '00-00000000000000000000000000000000-b7ad6b7169203331-01'],
    ['all-zero parent id', `00-${TRACE_ID}-0000000000000000-01`],
  ])('a %s traceparent starts a new trace', async (_what, traceparent) => {
    const { server } = testServer(() => undefined);

    const res = await server.inject({ url: '/nope', headers: { traceparent } });

    const { traceId } = expectProblem(res, 404, 'HUB_ERR_HTTP_NOT_FOUND');
    expect(traceId).not.toBe(TRACE_ID);
    expect(traceId).not.toMatch(/^0+$/);
  });
});
