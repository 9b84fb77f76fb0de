import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, FIXTURE, killChildren } from './support/child-host.js';

afterEach(killChildren);

describe('a hosted service whose start fails (real process)', () => {
  it('stops the start with an error naming the service and exits non-zero, never listening', async () => {
    const hub = new ChildHost(FIXTURE, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0'], {
      LIFECYCLE_FIXTURE_FAILING_START: 'fixture-broker',
    });

    const { code } = await hub.exited;

    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(hub.output).toMatch(/start failed/);
    expect(hub.output).toMatch(/fixture-broker/);
    expect(hub.output).toMatch(/cannot reach the fixture dependency/);
    // The HTTP server is registered last: it never started.
    expect(hub.output).not.toMatch(/http:\/\//);
  });
});
