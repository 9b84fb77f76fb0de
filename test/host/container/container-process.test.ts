import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, FIXTURE, killChildren } from '../support/child-host.js';

afterEach(killChildren);

const ARGS = ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0'];

// Real processes on a shared machine: start-up may take a while.
describe('the service container in a real process', { timeout: 90_000 }, () => {
  it('refuses registrations that cannot work: exit 78 naming the services, never listening', async () => {
    const hub = new ChildHost(FIXTURE, ARGS, { LIFECYCLE_FIXTURE_SERVICES: 'invalid' });

    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(
      /service container: 'fixtureReport' depends on 'fixtureMailer', which is not registered/,
    );
    expect(hub.output).toMatch(/service container: singleton 'fixtureTenantCache' depends on scoped 'tenantContext'/);
    // Hosted services are registered like any service: a missing dependency is named before anything starts.
    expect(hub.output).toMatch(
      /service container: 'fixtureExport' depends on 'fixtureExportLink', which is not registered/,
    );
    expect(hub.output).not.toMatch(/"msg":"listening"|\blistening\b/);
  });

  it('disposes the singletons at host stop, newest first, after the server stopped', async () => {
    const hub = new ChildHost(FIXTURE, ARGS, { LIFECYCLE_FIXTURE_SERVICES: 'disposable' });
    await hub.waitFor(/\blistening\b/, 60_000);
    const url = await hub.listeningUrl();
    expect(await (await fetch(`${url}/test/services`)).json()).toEqual({ name: 'second' });

    hub.signal('SIGTERM');

    expect((await hub.exited).code).toBe(0);
    const second = hub.output.indexOf('disposed second');
    const first = hub.output.indexOf('disposed first');
    expect(second).toBeGreaterThan(-1);
    expect(first).toBeGreaterThan(second);
    expect(hub.output.lastIndexOf('application stopping')).toBeLessThan(second);
  });
});
