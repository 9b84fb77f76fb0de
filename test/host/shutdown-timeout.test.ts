import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, FIXTURE, killChildren } from './support/child-host.js';

afterEach(killChildren);

const ARGS = ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0', '--Host:ShutdownTimeoutSeconds=1'];

describe('Host:ShutdownTimeoutSeconds (real process)', () => {
  it.each([
    ['keeps working on a timer', 'interval'],
    ['holds nothing that keeps the process alive', 'promise'],
  ])('abandons a service that ignores its abort signal and %s, and exits 1', async (_what, mode) => {
    const hub = new ChildHost(FIXTURE, ARGS, { LIFECYCLE_FIXTURE_STUCK: mode });
    await hub.listeningUrl();

    hub.signal('SIGTERM');

    expect((await hub.exited).code).toBe(1);
    expect(hub.output).toMatch(/shutdown timeout expired/);
    expect(hub.output).toMatch(/stuck-service/);
  });
});
