import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from './support/child-host.js';

afterEach(killChildren);

describe('a bad configuration value (real process)', () => {
  it('exits 78 naming the key and why', async () => {
    const hub = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Http:Port=eighty']);

    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Http:Port: must be an integer from 0 to 65535/);
    expect(hub.output).not.toMatch(/listening/);
  });

  it('exits 78 naming an environment variable key and where it came from', async () => {
    const hub = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL], {
      Throttle__MaxPerSecondPerDevice: '-1',
    });

    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Throttle:MaxPerSecondPerDevice: must be a number greater than 0/);
    expect(hub.output).toMatch(/environment variable Throttle__MaxPerSecondPerDevice/);
  });

  it('exits 78 naming a required key missing in Production', async () => {
    const hub = new ChildHost(MAIN, EPHEMERAL, { HUB_ENVIRONMENT: 'Production' });

    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Hub:AccessKey: is required in Production/);
  });

  it('exits 78 naming a bad secret without echoing its value', async () => {
    const hub = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Hub:AccessKey=short-secret-xyz']);

    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Hub:AccessKey: must be at least 32 characters/);
    expect(hub.output).not.toContain('short-secret-xyz');
  });
});
