import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const DIR = fileURLToPath(new URL('../../deploy/k8s/', import.meta.url));
const require = createRequire(import.meta.url);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
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

const manifests: { file: string; doc: Manifest }[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
      return { file, doc: d.toJS() as Manifest };
    }),
  );
const one = (kind: string) => manifests.find((m) => m.doc.kind === kind)!.doc as any;

describe('deploy/k8s manifests', () => {
  it.each(manifests.map((m) => [`${m.file} ${m.doc.kind}/${m.doc.metadata.name}`, m.doc] as const))('%s matches its Kubernetes schema', (_name, doc) => {
    expect(() => validate(doc)).not.toThrow();
  });

  it('the schema check rejects a broken manifest (it really validates)', () => {
    const broken = structuredClone(one('Deployment'));
    broken.spec.replicas = 'three';
    expect(() => validate(broken)).toThrow(/replicas/);
  });

  it('the Deployment keeps the drain timeline: preStop 10 s + shutdown 45 s inside the 60 s grace period', () => {
    const spec = one('Deployment').spec.template.spec;
    const hub = spec.containers[0];
    const env = new Map<string, any>(hub.env.map((e: any) => [e.name, e]));
    expect(spec.terminationGracePeriodSeconds).toBe(60);
    expect(hub.lifecycle.preStop.exec.command).toEqual(['sleep', '10']);
    expect(env.get('Host__ShutdownTimeoutSeconds').value).toBe('45');
    expect(10 + Number(env.get('Host__ShutdownTimeoutSeconds').value)).toBeLessThan(spec.terminationGracePeriodSeconds);
    expect(hub.livenessProbe.httpGet.path).toBe('/health/live');
    expect(hub.readinessProbe.httpGet.path).toBe('/health/ready');
    expect(hub.resources.requests).toBeDefined();
    expect(hub.resources.limits.memory).toBeDefined();
  });

  it('migrations run first, in an init container, against the same database', () => {
    const spec = one('Deployment').spec.template.spec;
    const [migrate] = spec.initContainers;
    expect(migrate.command).toEqual(['node', 'dist/src/db/migrate-cli.js']);
    expect(migrate.image).toBe(spec.containers[0].image);
    const db = (c: any) => c.env.find((e: any) => e.name === 'ConnectionStrings__postgres').valueFrom.secretKeyRef;
    expect(db(migrate)).toEqual(db(spec.containers[0]));
  });

  it('connection strings and keys come from the Secret, never inline', () => {
    const hub = one('Deployment').spec.template.spec.containers[0];
    const secret = one('Secret');
    for (const name of ['ConnectionStrings__redis', 'ConnectionStrings__postgres', 'ConnectionStrings__rabbitmq', 'ConnectionStrings__mqtt', 'Hub__AccessKey', 'Auth__Jwt__Secret']) {
      const ref = hub.env.find((e: any) => e.name === name)?.valueFrom?.secretKeyRef;
      expect(ref?.name, name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData)).toContain(ref.key);
    }
  });

  it('the PodDisruptionBudget and the Service select the Deployment’s pods', () => {
    const labels = one('Deployment').spec.template.metadata.labels;
    for (const selector of [one('PodDisruptionBudget').spec.selector.matchLabels, one('Service').spec.selector]) {
      for (const [k, v] of Object.entries(selector)) expect(labels[k]).toBe(v);
    }
  });
});
