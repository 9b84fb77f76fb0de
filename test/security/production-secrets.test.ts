import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../../src/security/dev-defaults.js';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from '../host/support/child-host.js';

// Issue 12 item 5: Production refuses the well-known development signing secret or one shorter
// than 32 bytes (exit 78 naming the key); Development binds 127.0.0.1 by default.

afterEach(killChildren);

const PRODUCTION = {
  HUB_ENVIRONMENT: 'Production',
  Hub__AccessKey: 'prod-access-key-0123456789-abcdefghijklmnop',
  Auth__Jwt__Issuer: 'https://issuer.test',
  Auth__Jwt__Audience: 'telemetry-hub',
};

describe('signing secrets outside Development (real process)', () => {
  it('exits 78 naming Auth:Jwt:Secret when it is the well-known development secret', async () => {
    const hub = new ChildHost(MAIN, EPHEMERAL, { ...PRODUCTION, Auth__Jwt__Secret: DEV_JWT_SECRET });
    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Auth:Jwt:Secret: is the well-known development secret/);
    expect(hub.output).not.toContain(DEV_JWT_SECRET);
    expect(hub.output).not.toMatch(/listening/);
  });

  it('exits 78 naming Hub:AccessKey when it is the well-known development secret (Staging too)', async () => {
    const hub = new ChildHost(MAIN, EPHEMERAL, {
      ...PRODUCTION,
      HUB_ENVIRONMENT: 'Staging',
      Hub__AccessKey: DEV_JWT_SECRET,
      Auth__Jwt__Secret: 'prod-jwt-secret-0123456789-abcdefghijklmnopq',
    });
    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Hub:AccessKey: is the well-known development secret/);
  });

  it('exits 78 naming Auth:Jwt:Secret when it is shorter than 32 bytes', async () => {
    const hub = new ChildHost(MAIN, EPHEMERAL, { ...PRODUCTION, Auth__Jwt__Secret: 'short-but-not-32-bytes' });
    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Auth:Jwt:Secret: must be at least 32/);
    expect(hub.output).not.toContain('short-but-not-32-bytes');
  });
});

describe('Development binds loopback by default (real process)', () => {
  it('listens on 127.0.0.1 only: the development sign-in is not reachable from the network', async (ctx) => {
    const hub = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0']);
    const url = new URL(await hub.listeningUrl());
    expect(url.hostname).toBe('127.0.0.1');
    expect((await fetch(`${url.origin}/auth/dev-token`)).status).toBe(200);

    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
    if (external === undefined) return ctx.skip();
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(url.port), external.address);
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
    expect(refused, `port ${url.port} answered on ${external.address}`).toBe(true);
  });
});
