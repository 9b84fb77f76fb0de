import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDataDirectory } from '../support/embedded-database.js';
import { ChildHost, EPHEMERAL, killChildren, ROOT } from '../host/support/child-host.js';

const exec = promisify(execFile);

/** What a Production hub needs besides its defaults: the secrets and token settings (the Dockerfile's users pass them as env). */
const PRODUCTION_ENV = {
  Hub__AccessKey: 'prod-install-access-key-0123456789abcdefghij',
  Auth__Jwt__Secret: 'prod-install-jwt-secret-0123456789abcdefghij',
  Auth__Jwt__Issuer: 'https://issuer.test',
  Auth__Jwt__Audience: 'telemetry-hub',
};

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

/**
 * The project installed as the Dockerfile installs it: `npm pack` on the built tree (prepack
 * builds, a no-op when dist/ is current), the tarball unpacked into an empty folder with the
 * lockfile beside it, `npm ci --omit=dev --ignore-scripts` (from npm's cache when it has the
 * packages), then the shipped entries run in Production from there.
 */
describe('a production install of the packed project (the Dockerfile’s steps)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-production-install-'));
  const app = join(dir, 'app');
  const data = freshDataDirectory();

  beforeAll(async () => {
    await exec('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, maxBuffer: 16 << 20 });
    const [tarball] = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
    mkdirSync(app);
    await exec('tar', ['-xzf', join(dir, tarball!), '-C', app, '--strip-components=1']);
    copyFileSync(join(ROOT, 'package-lock.json'), join(app, 'package-lock.json'));
    await exec('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      maxBuffer: 16 << 20,
    });
  }, 240_000);

  afterAll(async () => {
    await killChildren();
    data.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the package holds the built hub, the dashboard and the migrations; no sources, tests, bench or dashboard source maps', () => {
    const files = filesUnder(app).filter((f) => !f.startsWith('node_modules'));
    for (const f of [
      'dist/src/main.js',
      'dist/src/worker.js',
      'dist/src/gateway.js',
      'dist/src/tools/migrate-cli.js',
      'dist/src/wire/serverless/negotiate.js',
      'dist/web-client/index.html',
      'dist/api-explorer/swagger-ui-bundle.js',
      'dist/api-explorer/swagger-ui.css',
      'migrations/0001_devices_and_readings.sql',
    ]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /^(src|test|bench|functions|web-client|dist\/test|dist\/bench)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/web-client/') && f.endsWith('.map'))).toEqual([]);
  });

  it('holds runtime dependencies only', () => {
    for (const dev of [
      'typescript',
      'vitest',
      'vite',
      '@azure/functions',
      '@azure/web-pubsub',
      'kubernetes-models',
      // The build copies the API explorer's two files into dist/.
      'swagger-ui-dist',
    ]) {
      expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    }
    expect(existsSync(join(app, 'node_modules', 'fastify'))).toBe(true);
  });

  it('is at most a third of the 555 MB a full install of the project took before its dependencies were cleaned up', () => {
    const bytes = filesUnder(join(app, 'node_modules')).reduce(
      (sum, f) => sum + lstatSync(join(app, 'node_modules', f)).size,
      0,
    );
    expect(bytes / 2 ** 20).toBeLessThanOrEqual(555 / 3);
  });

  it('migrates, starts in Production and serves health, the dashboard, a user’s REST call and negotiate', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...PRODUCTION_ENV, Database__DataDirectory: data.path };
    delete env.HUB_ENVIRONMENT;
    // The init container's step: the shipped migrations, applied (here: already, so nothing to do).
    await exec(process.execPath, ['dist/src/tools/migrate-cli.js'], { cwd: app, env });
    const { stdout: token } = await exec(
      process.execPath,
      ['dist/src/tools/token.js', '--sub', 'ops', '--tenant', 'demo'],
      { cwd: app, env },
    );

    const hub = new ChildHost(
      join(app, 'dist/src/main.js'),
      EPHEMERAL,
      { ...PRODUCTION_ENV, Database__DataDirectory: data.path },
      { cwd: app },
    );
    // A Production start logs JSON; the first thing it opens is the embedded database.
    await hub.waitFor(/"msg":"listening"/, 30_000);
    const url = await hub.listeningUrl();

    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script type="module"[^>]* src="\/assets\/index-[\w-]+\.js"/);
    const auth = { authorization: `Bearer ${token.trim()}` };
    const devices = await fetch(`${url}/v1/devices`, { headers: auth });
    expect(devices.status).toBe(200);
    expect(await devices.json()).toEqual(expect.any(Object));
    const negotiate = await fetch(`${url}/api/negotiate`, { method: 'POST', headers: auth });
    expect(negotiate.status).toBe(200);
    expect(((await negotiate.json()) as { url: string }).url).toMatch(
      /^ws:\/\/[^/]+\/client\/hubs\/telemetry\?access_token=/,
    );

    hub.signal('SIGTERM');
    expect((await hub.exited).code).toBe(0);
  }, 60_000);
});
