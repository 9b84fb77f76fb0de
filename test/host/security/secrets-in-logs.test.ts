import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from '../support/child-host.js';
import { requireService } from '../../support/services.js';

// Issue 12 item 5: every secret in configuration (connection-string passwords, keys, signing
// secrets) is redacted wherever configuration or errors are logged: the tests scan the whole output.

afterEach(killChildren);

const unique = (label: string) => `${label}-${randomBytes(9).toString('base64url')}`;

const PRODUCTION = (accessKey: string, jwtSecret: string) => ({
  HUB_ENVIRONMENT: 'Production',
  Hub__AccessKey: accessKey,
  Auth__Jwt__Secret: jwtSecret,
  Auth__Jwt__Issuer: 'https://issuer.test',
  Auth__Jwt__Audience: 'telemetry-hub',
});

function expectNoSecret(output: string, secrets: string[]): void {
  for (const secret of secrets) {
    expect(output, `the output shows ${secret}`).not.toContain(secret);
    expect(output).not.toContain(encodeURIComponent(secret));
  }
}

describe('secrets in the log of a running hub (real process, Production, debug level)', () => {
  it('redacts the MQTT password, keys and signing secret in the configuration, the ready line and unknown-key warnings', async (ctx) => {
    if (!(await requireService('Mosquitto', 1883))) return ctx.skip();
    const accessKey = unique('access-key-0123456789abcdef0123456789');
    const jwtSecret = unique('jwt-secret-0123456789abcdef0123456789');
    const mqttPassword = unique('MqttPw');
    const typoPassword = unique('TypoPw');
    const hub = new ChildHost(
      MAIN,
      [
        ...EPHEMERAL,
        '--Logging:LogLevel:Default=debug',
        `--ConnectionStrings:mqtt=mqtt://hubuser:${mqttPassword}@127.0.0.1:1883`,
        `--Ingestion:Mqtt:ClientId=secrets-test-${process.pid}`,
        // A typo'd key holding a secret: warned about by name, never by value.
        `--ConnectionStrings:mqt=mqtt://hubuser:${typoPassword}@127.0.0.1:1883`,
      ],
      PRODUCTION(accessKey, jwtSecret),
    );
    await hub.waitFor(/"msg":"telemetry hub ready"/, 15_000);

    expect(hub.output).toMatch(/"msg":"configuration"/);
    expect(hub.output).toMatch(/"msg":"unknown configuration key"/);
    // The host stays readable: only the password is replaced.
    expect(hub.output).toContain('mqtt://hubuser:[redacted]@127.0.0.1:1883');
    expectNoSecret(hub.output, [accessKey, jwtSecret, mqttPassword, typoPassword]);
  });

  it('redacts a Redis password when Redis refuses the connection and start-up fails', async (ctx) => {
    if (!(await requireService('Redis', 6379))) return ctx.skip();
    const redisPassword = unique('RedisPw');
    const hub = new ChildHost(
      MAIN,
      [
        ...EPHEMERAL,
        '--Logging:LogLevel:Default=debug',
        `--ConnectionStrings:redis=redis://hubuser:${redisPassword}@127.0.0.1:6379/0`,
      ],
      PRODUCTION(unique('access-key-0123456789abcdef0123456789'), unique('jwt-secret-0123456789abcdef0123456789')),
    );
    await Promise.race([hub.exited, hub.waitFor(/"msg":"(redis error|listening)"/, 15_000)]);
    expect(hub.output).toMatch(/redis/i);
    expectNoSecret(hub.output, [redisPassword]);
  });
});

describe('secrets in configuration errors (exit 78)', () => {
  it('never echoes a password inside a bad URL or connection string', async () => {
    const mqttPassword = unique('MqttPw');
    const jwksPassword = unique('JwksPw');
    const hub = new ChildHost(MAIN, [
      '--environment=Development',
      ...EPHEMERAL,
      `--ConnectionStrings:mqtt=mqtt://u:${mqttPassword}@broker.example:99999`,
      `--Auth:Jwt:JwksUri=ftp://u:${jwksPassword}@idp.example/keys`,
      '--Http:Port=eighty',
    ]);

    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/ConnectionStrings:mqtt:/);
    expect(hub.output).toMatch(/Auth:Jwt:JwksUri: must use one of https:\/\/, http:\/\//);
    expect(hub.output).toMatch(/Http:Port: must be an integer/);
    expectNoSecret(hub.output, [mqttPassword, jwksPassword]);
  });
});
