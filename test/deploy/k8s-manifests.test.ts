import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ConfigError } from '../../src/host/config/load-config.js';
import { requireCommand } from '../support/private-server.js';
import { deployedEntry, unknownVariables } from './deployed-config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;
const OVERLAYS = ['dev', 'prod'] as const;

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

/**
 * Offline schema check: kubernetes-models ships the Kubernetes OpenAPI schemas per kind and
 * validates with ajv (types, enums, required fields; unknown fields are not flagged).
 */
function validate(doc: Manifest): void {
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : ['', doc.apiVersion];
  const path = `kubernetes-models/${group === '' ? '' : `${group}/`}${version}/${doc.kind}`;
  const Model = (require(path) as Record<string, new (d: unknown) => { validate(): void }>)[doc.kind]!;
  new Model(doc).validate();
}

/** `kubectl kustomize deploy/k8s/overlays/<overlay>`: what `kubectl apply -k` would send (kustomize renders offline). */
function render(overlay: string): Manifest[] {
  const out = execFileSync('kubectl', ['kustomize', `deploy/k8s/overlays/${overlay}`], { cwd: ROOT, encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => {
    if (d.errors.length > 0) throw new Error(`${overlay}: ${d.errors[0]!.message}`);
    return d.toJS() as Manifest;
  });
}

const available = requireCommand('kubectl', 'the Kubernetes manifests are rendered with kubectl kustomize');
const rendered = new Map(available ? OVERLAYS.map((o) => [o, render(o)] as const) : []);
const one = (overlay: string, kind: string) => rendered.get(overlay as never)!.find((m) => m.kind === kind)! as any;
const hubOf = (overlay: string) => one(overlay, 'Deployment').spec.template.spec.containers[0];
const envOf = (container: any) => new Map<string, any>(container.env.map((e: any) => [e.name, e]));

/** A container's environment as the pod would see it: Secret keys resolved, the pod name for fieldRefs. */
function podEnvironment(
  overlay: string,
  container: any,
  secretData: Record<string, string> = one(overlay, 'Secret').stringData,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const e of container.env) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) env[e.name] = secretData[e.valueFrom.secretKeyRef.key];
    else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[e.name] = 'telemetry-hub-7d9f8-abcde';
    else throw new Error(`${e.name}: an env source this test does not resolve`);
  }
  return env;
}

describe.skipIf(!available)('deploy/k8s: a Kustomize base with dev and prod overlays', () => {
  const docs = [...rendered].flatMap(([overlay, manifests]) =>
    manifests.map((m) => [`${overlay}: ${m.kind}/${m.metadata.name}`, m] as const),
  );

  it.each(docs)('%s matches its Kubernetes schema', (_name, doc) => {
    expect(() => validate(doc)).not.toThrow();
  });

  it('the schema check rejects a broken manifest (it really validates)', () => {
    const broken = structuredClone(one('prod', 'Deployment'));
    broken.spec.replicas = 'three';
    expect(() => validate(broken)).toThrow(/replicas/);
  });

  it('each overlay sets its own namespace, replicas and resources', () => {
    const hub = (o: string) => hubOf(o).resources;
    expect(rendered.get('dev')!.every((m) => m.metadata.namespace === 'telemetry-dev')).toBe(true);
    expect(rendered.get('prod')!.every((m) => m.metadata.namespace === 'telemetry')).toBe(true);
    expect(one('dev', 'Deployment').spec.replicas).toBe(1);
    expect(one('prod', 'Deployment').spec.replicas).toBe(3);
    for (const o of OVERLAYS) expect(hub(o).requests.memory && hub(o).limits.memory, o).toBeTruthy();
    expect(hub('dev')).not.toEqual(hub('prod'));
  });

  it.each(OVERLAYS)(
    '%s: every container runs the image the Dockerfile builds, named as compose.yaml names it',
    (overlay) => {
      const spec = one(overlay, 'Deployment').spec.template.spec;
      const image = `telemetry-hub:${VERSION}`;
      expect([...spec.initContainers, ...spec.containers].map((c: any) => c.image)).toEqual([image, image]);
      expect(readFileSync(`${ROOT}Dockerfile`, 'utf8')).toContain(`docker build -t ${image} .`);
      expect(readFileSync(`${ROOT}compose.yaml`, 'utf8')).toContain(`image: ${image}\n`);
    },
  );

  it.each(OVERLAYS)(
    '%s: the Deployment keeps the drain timeline: preStop 10 s + shutdown 45 s inside the 60 s grace period',
    (overlay) => {
      const spec = one(overlay, 'Deployment').spec.template.spec;
      const hub = spec.containers[0];
      const env = envOf(hub);
      expect(spec.terminationGracePeriodSeconds).toBe(60);
      expect(hub.lifecycle.preStop.exec.command).toEqual(['sleep', '10']);
      expect(env.get('Host__ShutdownTimeoutSeconds').value).toBe('45');
      expect(10 + Number(env.get('Host__ShutdownTimeoutSeconds').value)).toBeLessThan(
        spec.terminationGracePeriodSeconds,
      );
      expect(hub.livenessProbe.httpGet.path).toBe('/health/live');
      expect(hub.readinessProbe.httpGet.path).toBe('/health/ready');
    },
  );

  it.each(OVERLAYS)(
    '%s: migrations run first, in an init container, on the same database as the tables’ owner',
    (overlay) => {
      const spec = one(overlay, 'Deployment').spec.template.spec;
      const [migrate] = spec.initContainers;
      expect(migrate.command).toEqual(['node', 'dist/src/tools/migrate-cli.js']);
      const secret = one(overlay, 'Secret').stringData;
      const db = (c: any) =>
        new URL(secret[c.env.find((e: any) => e.name === 'ConnectionStrings__postgres').valueFrom.secretKeyRef.key]);
      const [owner, hub] = [db(migrate), db(spec.containers[0])];
      expect(`${owner.host}${owner.pathname}`).toBe(`${hub.host}${hub.pathname}`);
      expect(owner.username).not.toBe(hub.username);
    },
  );

  it.each(OVERLAYS)('%s: connection strings and keys come from the Secret, never inline', (overlay) => {
    const hub = hubOf(overlay);
    const secret = one(overlay, 'Secret');
    for (const name of [
      'ConnectionStrings__redis',
      'ConnectionStrings__postgres',
      'ConnectionStrings__rabbitmq',
      'ConnectionStrings__mqtt',
      'Hub__AccessKey',
      'Auth__Jwt__Secret',
    ]) {
      const ref = hub.env.find((e: any) => e.name === name)?.valueFrom?.secretKeyRef;
      expect(ref?.name, name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData)).toContain(ref.key);
    }
  });

  it.each(OVERLAYS)('%s: every service is reached over TLS with credentials', (overlay) => {
    const secret = one(overlay, 'Secret').stringData as Record<string, string>;
    const urls = Object.entries(secret).filter(([, v]) => v.includes('://'));
    expect(urls.map(([k]) => k).sort()).toEqual(['mqtt', 'postgres', 'postgres-migrations', 'rabbitmq', 'redis']);
    for (const [key, value] of urls) {
      const url = new URL(value);
      expect(url.username && url.password, key).toBeTruthy();
      if (url.protocol === 'postgres:') expect(url.searchParams.get('sslmode'), key).toBe('verify-full');
      else expect(url.protocol, key).toMatch(/^(rediss|mqtts|amqps):$/);
    }
  });

  it.each(OVERLAYS)(
    '%s: sets Http:PublicBaseUrl (https), so no URL the hub hands out follows a request’s Host',
    (overlay) => {
      const url = envOf(hubOf(overlay)).get('Http__PublicBaseUrl')?.value;
      expect(url).toMatch(/^https:\/\/[a-z0-9.-]+$/);
    },
  );

  it.each(OVERLAYS)(
    '%s: believes forwarded headers from a narrow range only (never 0.0.0.0/0 or a whole /8)',
    (overlay) => {
      const value: string = envOf(hubOf(overlay)).get('Http__TrustedProxies')?.value;
      const entries = value.split(',').map((s) => s.trim());
      expect(entries.length).toBeGreaterThan(0);
      for (const entry of entries) {
        const [address, bits] = entry.split('/');
        const family = isIP(address!);
        expect(family, entry).not.toBe(0);
        if (bits !== undefined) expect(Number(bits), entry).toBeGreaterThanOrEqual(family === 4 ? 24 : 64);
      }
    },
  );

  it.each(OVERLAYS)(
    '%s: every variable is a key the entry reads, and the hub refuses to start only on the placeholder keys',
    (overlay) => {
      const spec = one(overlay, 'Deployment').spec.template.spec;
      for (const container of [...spec.initContainers, ...spec.containers]) {
        const entry = deployedEntry(container.command);
        expect(
          unknownVariables(
            container.env.map((e: any) => e.name),
            entry.keys,
          ),
          container.name,
        ).toEqual([]);
      }
      // As rendered: the Secret's placeholders are too short to be keys, and nothing else is wrong.
      const hubEnv = podEnvironment(overlay, spec.containers[0]);
      let error: unknown;
      try {
        deployedEntry(spec.containers[0].command).load(hubEnv);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.slice(0, p.indexOf(': '))).sort()).toEqual([
        'Auth:Jwt:Secret',
        'Hub:AccessKey',
      ]);
      // With keys of the operator's own, both containers' configurations load.
      const filled = {
        ...one(overlay, 'Secret').stringData,
        'hub-access-key': 'k'.repeat(40),
        'jwt-secret': 's'.repeat(40),
      };
      for (const container of [...spec.initContainers, ...spec.containers]) {
        expect(
          () => deployedEntry(container.command).load(podEnvironment(overlay, container, filled)),
          container.name,
        ).not.toThrow();
      }
    },
  );

  it.each(OVERLAYS)(
    '%s: firmware goes to a shared volume and uploads buffer in a writable /tmp (the root file system is read-only)',
    (overlay) => {
      const spec = one(overlay, 'Deployment').spec.template.spec;
      const hub = spec.containers[0];
      expect(hub.securityContext.readOnlyRootFilesystem).toBe(true);
      const mounts = new Map<string, string>(hub.volumeMounts.map((m: any) => [m.mountPath, m.name]));
      const env = envOf(hub);
      const firmware = spec.volumes.find((v: any) => v.name === mounts.get(env.get('Storage__Path').value));
      expect(firmware.persistentVolumeClaim.claimName).toBe(one(overlay, 'PersistentVolumeClaim').metadata.name);
      expect(
        spec.volumes.find((v: any) => v.name === mounts.get(env.get('Storage__TempPath').value)).emptyDir,
      ).toBeDefined();
    },
  );

  it.each(OVERLAYS)('%s: the PodDisruptionBudget and the Service select the Deployment’s pods', (overlay) => {
    const labels = one(overlay, 'Deployment').spec.template.metadata.labels;
    for (const selector of [
      one(overlay, 'PodDisruptionBudget').spec.selector.matchLabels,
      one(overlay, 'Service').spec.selector,
    ]) {
      for (const [k, v] of Object.entries(selector)) expect(labels[k]).toBe(v);
    }
  });
});
