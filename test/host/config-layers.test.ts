import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/compose/load-app-config.js';
import { ConfigError } from '../../src/host/config/load-config.js';
import { contentRoot } from './support/test-config.js';

const SECRETS = {
  'Hub:AccessKey': 'file-access-key-0123456789-abcdefghijklmno',
  'Auth:Jwt:Secret': 'file-jwt-secret-0123456789-abcdefghijklmnop',
};

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration layers: defaults < appsettings.json < appsettings.{Environment}.json < env Section__Key < --Section:Key', () => {
  const files = {
    'appsettings.json': {
      Http: { Port: 1001, Host: '127.0.0.1' },
      Hub: { Name: 'fromfile' },
      Throttle: { MaxPerSecondPerDevice: 2 },
    },
    'appsettings.Staging.json': { Http: { Port: 1002 }, Hub: { Name: 'fromstaging' } },
  };
  const env = {
    HUB_ENVIRONMENT: 'Staging',
    Http__Port: '1003',
    Hub__AccessKey: SECRETS['Hub:AccessKey'],
    Auth__Jwt__Secret: SECRETS['Auth:Jwt:Secret'],
    Auth__Jwt__Issuer: 'i',
    Auth__Jwt__Audience: 'a',
  };

  it('each layer overrides the one before it, key by key', () => {
    const config = loadConfig({ args: ['--Http:Port=1004'], env, contentRoot: contentRoot(files) });

    expect(config.environment).toBe('Staging');
    expect(config.http.port).toBe(1004); // command line
    expect(config.hub.name).toBe('fromstaging'); // environment file
    expect(config.http.host).toBe('127.0.0.1'); // appsettings.json
    expect(config.throttle.maxPerSecondPerDevice).toBe(2); // appsettings.json
    expect(config.host.shutdownTimeoutMs).toBe(30_000); // default
  });

  it('an environment variable beats both files; without it the environment file wins', () => {
    const root = contentRoot(files);
    expect(loadConfig({ args: [], env, contentRoot: root }).http.port).toBe(1003);
    const { Http__Port: _, ...withoutPort } = env;
    expect(loadConfig({ args: [], env: withoutPort, contentRoot: root }).http.port).toBe(1002);
  });

  it('--environment picks the environment (and its file) over HUB_ENVIRONMENT', () => {
    const config = loadConfig({ args: ['--environment=Development'], env, contentRoot: contentRoot(files) });
    expect(config.environment).toBe('Development');
    expect(config.hub.name).toBe('fromfile');
  });

  it('keys match case-insensitively, and PORT is an alias that Http__Port beats', () => {
    const root = contentRoot();
    expect(
      loadConfig({ args: ['--environment=Development', '--http:port=1200'], env: {}, contentRoot: root }).http.port,
    ).toBe(1200);
    expect(
      loadConfig({ args: ['--environment=Development'], env: { PORT: '1300' }, contentRoot: root }).http.port,
    ).toBe(1300);
    expect(
      loadConfig({ args: ['--environment=Development'], env: { PORT: '1300', Http__Port: '1400' }, contentRoot: root })
        .http.port,
    ).toBe(1400);
  });

  it('defaults: Http:Port 8080, shutdown 30 s, health check timeout 5 s', () => {
    const config = loadConfig({ args: ['--environment=Development'], env: {}, contentRoot: contentRoot() });
    expect(config.http.port).toBe(8080);
    expect(config.host.shutdownTimeoutMs).toBe(30_000);
    expect(config.health.checkTimeoutMs).toBe(5_000);
  });

  it('is frozen: nothing can change it after validation', () => {
    const config = loadConfig({ args: ['--environment=Development'], env: {}, contentRoot: contentRoot() });
    expect(() => {
      (config.http as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(Object.isFrozen(config.logging.categories)).toBe(true);
  });
});

describe('configuration validation', () => {
  it('reports every bad value, each naming its key, why, and where it came from', () => {
    const problems = problemsOf(() =>
      loadConfig({
        args: ['--environment=Development', '--Http:Port=70000'],
        env: { Host__ShutdownTimeoutSeconds: 'soon' },
        contentRoot: contentRoot({ 'appsettings.json': { Logging: { LogLevel: { Http: 'loud' } } } }),
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Http:Port: must be an integer from 0 to 65535 .*command line/),
        expect.stringMatching(
          /^Host:ShutdownTimeoutSeconds: must be a number .*environment variable Host__ShutdownTimeoutSeconds/,
        ),
        expect.stringMatching(/^Logging:LogLevel:Http: must be one of .*appsettings\.json/),
      ]),
    );
  });

  it('names a broken appsettings file', () => {
    const problems = problemsOf(() =>
      loadConfig({
        args: ['--environment=Development'],
        env: {},
        contentRoot: contentRoot({ 'appsettings.json': '{ not json' }),
      }),
    );
    expect(problems).toEqual([expect.stringMatching(/^appsettings\.json: is not valid JSON/)]);
  });

  it('never echoes a secret value in a problem', () => {
    const secret = 'tiny-secret';
    const problems = problemsOf(() =>
      loadConfig({
        args: ['--environment=Development', `--Auth:Jwt:Secret=${secret}`],
        env: {},
        contentRoot: contentRoot(),
      }),
    );
    expect(problems).toEqual([expect.stringMatching(/^Auth:Jwt:Secret: must be at least 32 characters/)]);
    expect(problems.join('\n')).not.toContain(secret);
  });

  it('describes itself for the log with secrets redacted', () => {
    const config = loadConfig({
      args: [
        '--environment=Development',
        `--Hub:AccessKey=${SECRETS['Hub:AccessKey']}`,
        '--ConnectionStrings:redis=redis://:pw-in-url@cache:6379',
      ],
      env: {},
      contentRoot: contentRoot(),
    });
    const described = JSON.stringify(config.describe());
    expect(config.describe()).toMatchObject({
      'Hub:AccessKey': '[redacted]',
      'ConnectionStrings:redis': 'redis://:[redacted]@cache:6379',
      'Http:Port': 8080,
    });
    expect(described).not.toContain(SECRETS['Hub:AccessKey']);
    expect(described).not.toContain('pw-in-url');
  });
});
