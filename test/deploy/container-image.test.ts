import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deployedEntry, unknownVariables } from './deployed-config.js';

/**
 * The Dockerfile and compose.yaml, checked offline (no Docker daemon or registry here): the image
 * cannot be built in this suite, but what it is made of can be. The steps themselves run in
 * production-install.test.ts.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const manifest = JSON.parse(read('package.json')) as { version: string; files: string[] };
const IMAGE = `telemetry-hub:${manifest.version}`;

interface Stage {
  name: string;
  base: string;
  lines: string[];
}

/** The Dockerfile's stages and their instructions (continuation lines joined, comments dropped). */
function stages(text: string): Stage[] {
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const out: Stage[] = [];
  for (const line of instructions) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) out.push({ base: from[1]!, name: from[2] ?? String(out.length), lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/** compose.yaml's `${VAR:?message}`, `${VAR:-default}`, `${VAR}` and `$$`, as compose substitutes them with .env set. */
function interpolate(value: string): string {
  return value
    .replace(/\$\{(\w+)(?::\?[^}]*)?\}/g, (_m, name: string) => `${name.toLowerCase()}-`.padEnd(40, 'x'))
    .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
    .replace(/\$\$/g, '$');
}

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const all = stages(dockerfile);
  const final = all.at(-1)!;

  it('builds in several stages, each copying only from an earlier stage or files that exist', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    all.forEach((stage, i) => {
      for (const line of stage.lines.filter((l) => /^COPY\s/i.test(l))) {
        const parts = line.split(/\s+/).slice(1);
        const from = parts.find((p) => p.startsWith('--from='))?.slice('--from='.length);
        const sources = parts.filter((p) => !p.startsWith('--')).slice(0, -1);
        if (from !== undefined)
          expect(
            all.slice(0, i).map((s) => s.name),
            line,
          ).toContain(from);
        else for (const source of sources) expect(existsSync(join(ROOT, source)), line).toBe(true);
      }
    });
  });

  it('installs production dependencies only, from the lockfile, with no install script', () => {
    expect(dockerfile).toMatch(/npm ci --omit=dev --ignore-scripts/);
    expect(final.lines.some((l) => /^RUN .*npm (ci|install)/.test(l))).toBe(false);
  });

  it('runs as a non-root user, checks /health/live, and runs node as PID 1 on the packed main entry', () => {
    const user = final.lines.find((l) => /^USER\s/i.test(l))?.split(/\s+/)[1];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(final.lines.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/\/health\/live/);
    const cmd = final.lines.find((l) => l.startsWith('CMD'))!;
    // Exec form: no shell between the container runtime's SIGTERM and Node.
    const argv = JSON.parse(cmd.slice('CMD'.length)) as string[];
    expect(argv).toEqual(['node', 'dist/src/main.js']);
    expect(manifest.files).toContain('dist/src/');
  });

  it('.dockerignore keeps installed packages, build output, local data and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['.git', 'node_modules', 'dist', 'data', 'bench/.cache', '.env'])
      expect(ignored, entry).toContain(entry);
  });
});

describe('compose.yaml (the whole stack)', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, any>;
    networks: Record<string, any>;
  };
  const services = compose.services;
  const hubImage = Object.entries(services).filter(([, s]) => s.image === IMAGE);

  it('runs two hubs, the gateway, the worker, the migrations and every service they use', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'gateway',
        'hub-1',
        'hub-2',
        'migrate',
        'mosquitto',
        'otel-collector',
        'postgres',
        'prometheus',
        'rabbitmq',
        'redis',
        'worker',
      ].sort(),
    );
    expect(hubImage.map(([name]) => name).sort()).toEqual(['gateway', 'hub-1', 'hub-2', 'migrate', 'worker']);
    for (const [name, s] of hubImage) expect(s.build, name).toBe('.');
  });

  it('gives each Telemetry Hub container only keys its entry reads, and a configuration its entry accepts', () => {
    for (const [name, s] of hubImage) {
      const entry = deployedEntry(s.command);
      const env = Object.fromEntries(
        Object.entries(s.environment as Record<string, string>).map(([k, v]) => [k, interpolate(String(v))]),
      );
      expect(unknownVariables(Object.keys(env), entry.keys), name).toEqual([]);
      expect(() => entry.load(env), name).not.toThrow();
    }
  });

  it('the hubs name their public URL and believe forwarded headers from the gateway alone', () => {
    const gateway = services.gateway.networks.stack.ipv4_address as string;
    expect(compose.networks.stack.ipam.config[0].subnet).toBe(`${gateway.split('.').slice(0, 3).join('.')}.0/24`);
    for (const hub of ['hub-1', 'hub-2']) {
      expect(services[hub].environment.Http__TrustedProxies, hub).toBe(gateway);
      expect(services[hub].environment.Http__PublicBaseUrl, hub).toBeDefined();
    }
  });

  it('every file it mounts exists', () => {
    const mounts = Object.values(services).flatMap((s: any) => (s.volumes ?? []) as string[]);
    const files = mounts.filter((m) => m.startsWith('./')).map((m) => m.split(':')[0]!);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });
});
