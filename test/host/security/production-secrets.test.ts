import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/compose/load-app-config.js';
import { DEV_JWT_SECRET } from '../../../src/host/security/dev-defaults.js';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from '../support/child-host.js';

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

describe('issue 25 item 5: Development refuses a non-loopback Http:Host unless Http:AllowRemoteDevelopment', () => {
  it('exits 78 naming Http:Host for 0.0.0.0 in Development, before listening anywhere (real process)', async () => {
    const hub = new ChildHost(MAIN, [
      '--environment=Development',
      ...EPHEMERAL,
      '--Http:Host=0.0.0.0',
      '--Simulator:Devices=0',
    ]);
    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(
      /Http:Host: Development listens on loopback only .*set Http:AllowRemoteDevelopment=true/,
    );
    expect(hub.output).not.toMatch(/listening/);
  });

  const httpHost = (environment: string, args: string[]) =>
    loadConfig({
      args,
      env: {
        HUB_ENVIRONMENT: environment,
        Hub__AccessKey: 'k'.repeat(40),
        Auth__Jwt__Secret: 's'.repeat(40),
        Auth__Jwt__Issuer: 'i',
        Auth__Jwt__Audience: 'a',
      },
      contentRoot: '/nonexistent',
    }).http.host;

  it('takes any loopback spelling in Development, and a remote address only with Http:AllowRemoteDevelopment=true', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(httpHost('Development', [`--Http:Host=${host}`])).toBe(host);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'hub.example.com']) {
      expect(() => httpHost('Development', [`--Http:Host=${host}`])).toThrow(/Http:Host/);
      expect(httpHost('Development', [`--Http:Host=${host}`, '--Http:AllowRemoteDevelopment=true'])).toBe(host);
    }
    // Outside Development the listen address is the operator's choice, as before.
    expect(httpHost('Production', [])).toBe('0.0.0.0');
  });
});
