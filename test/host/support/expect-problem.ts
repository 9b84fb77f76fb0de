import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';

export type { ProblemDetails as Problem } from '../../../src/host/problem.js';
import type { ProblemDetails as Problem } from '../../../src/host/problem.js';

/** Asserts an RFC 9457 problem+json answer with every member the contract names; returns the body. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string, instance?: string): Problem {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json<Problem>();
  expect(body).toMatchObject({
    type: expect.stringContaining(code),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: instance ?? expect.any(String),
    traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    code,
  });
  return body;
}
