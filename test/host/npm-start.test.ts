import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from './support/child-host.js';

afterEach(killChildren);

describe("npm start's command (node dist/src/main.js --environment=Development)", () => {
  it('answers /health/live 200 within 3 s of the listening line', async () => {
    const hub = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL]);
    const url = await hub.listeningUrl();

    const res = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(3000) });

    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      checks: { name: string; status: string; durationMs: number }[];
    };
    expect(body.status).toBe('Healthy');
    expect(body.checks).toContainEqual(
      expect.objectContaining({ name: 'self', status: 'Healthy', durationMs: expect.any(Number) }),
    );
  });

  it('logs readable lines, not JSON, in Development', async () => {
    const hub = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL]);
    await hub.listeningUrl();

    const listeningLine = hub.output.split('\n').find((l) => l.includes('listening'))!;
    expect(() => JSON.parse(listeningLine)).toThrow();
    expect(listeningLine).toMatch(/INFO/);
  });
});
