import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { archivedVersions } from '../../src/tools/api-check/api-check.js';
import { breakingChanges } from '../../src/tools/api-check/openapi-diff.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const PUBLISHED = join(ROOT, 'api', 'published');

/** The newest published public document: what the next change is checked against. */
function latestPublished(): { version: string; doc: Record<string, any> } {
  const version = archivedVersions(PUBLISHED).at(-1)!;
  return { version, doc: JSON.parse(readFileSync(join(PUBLISHED, `public-${version}.json`), 'utf8')) };
}

/** `npm run api:check` as CI runs it (the built CLI), on a copy of the archive. */
async function apiCheck(doc: unknown, acknowledged: { id: string; reason: string }[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'api-check-'));
  cpSync(PUBLISHED, join(dir, 'published'), { recursive: true });
  writeFileSync(join(dir, 'doc.json'), JSON.stringify(doc));
  writeFileSync(join(dir, 'ack.json'), JSON.stringify({ acknowledged }));
  const argv = [
    'dist/src/tools/api-check-cli.js',
    '--document',
    join(dir, 'doc.json'),
    '--published',
    join(dir, 'published'),
    '--acknowledged',
    join(dir, 'ack.json'),
    '--portal',
    join(dir, 'portal'),
  ];
  try {
    const { stdout } = await run(process.execPath, argv, { cwd: ROOT });
    return { code: 0, stdout, dir };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout, dir };
  }
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

// Each check runs the built CLI as a process (the OpenAPI linter and the whole app load in each): slow on a busy machine.
describe('npm run api:check', { timeout: 90_000 }, () => {
  const { version, doc } = latestPublished();

  it('fails on a removed response field, naming it', async () => {
    const changed = clone(doc);
    const bump = { ...changed.info, version: '9.9.9' };
    changed.info = bump;
    const item =
      changed.paths['/v1/devices'].get.responses['200'].content['application/json'].schema.properties.items.items;
    delete item.properties.lastSeen;
    item.required = item.required.filter((r: string) => r !== 'lastSeen');
    const result = await apiCheck(changed);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`compared with published ${version}`);
    expect(result.stdout).toContain('BREAKING CHANGE response-property-removed:GET /v1/devices:200:items[].lastSeen');
    expect(existsSync(join(result.dir, 'published', 'public-9.9.9.json'))).toBe(false);
    expect(existsSync(join(result.dir, 'portal'))).toBe(false);
  });

  it('passes when that break is acknowledged: archives the document and builds one portal page per version', async () => {
    const changed = clone(doc);
    changed.info = { ...changed.info, version: '9.9.9' };
    delete changed.paths['/v1/devices'].get.responses['200'].content['application/json'].schema.properties.nextCursor;
    const id = 'response-property-removed:GET /v1/devices:200:nextCursor';
    const result = await apiCheck(changed, [{ id, reason: 'test' }]);
    expect(result.stdout).toContain(`acknowledged breaking change: ${id}`);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(result.dir, 'published', 'public-9.9.9.json'), 'utf8'))).toEqual(changed);
    const index = readFileSync(join(result.dir, 'portal', 'index.html'), 'utf8');
    expect(index).toContain('href="9.9.9.html"');
    expect(index).toContain(`href="${version}.html"`);
    expect(readFileSync(join(result.dir, 'portal', '9.9.9.html'), 'utf8')).toContain('<code>/v1/devices</code>');
  });

  it('the document the hub generates now passes against the published one (CI runs this)', async () => {
    const { stdout, code } = await (async () => {
      try {
        const dir = mkdtempSync(join(tmpdir(), 'api-check-'));
        cpSync(PUBLISHED, join(dir, 'published'), { recursive: true });
        const r = await run(
          process.execPath,
          ['dist/src/tools/api-check-cli.js', '--published', join(dir, 'published'), '--portal', join(dir, 'portal')],
          { cwd: ROOT },
        );
        return { stdout: r.stdout, code: 0 };
      } catch (err) {
        return { stdout: (err as { stdout: string }).stdout, code: (err as { code: number }).code };
      }
    })();
    expect(stdout).toContain('api:check passed');
    expect(code).toBe(0);
    // …and with it the dashboard compiles against the types of that document (issue 30 item 8).
    expect(stdout).not.toContain('DASHBOARD:');
  }, 90_000);

  it('a changed document must raise info.version: the same version with other content fails, as does a lower one', async () => {
    const changed = clone(doc);
    changed.info.description = `${String(changed.info.description)} (reworded)`;
    const same = await apiCheck(changed);
    expect(same.code).toBe(1);
    expect(same.stdout).toContain(`VERSION: the public document changed but info.version is still ${version}`);
    const lower = await apiCheck({ ...clone(doc), info: { ...doc.info, version: '0.9.0' } });
    expect(lower.code).toBe(1);
    expect(lower.stdout).toContain('lower than the published');
    expect((await apiCheck(clone(doc))).code).toBe(0); // unchanged: passes
  });

  it('fails on a lint error (a path parameter nobody declares, an operationId used twice)', async () => {
    const changed = clone(doc);
    changed.paths['/v1/devices/{deviceId}'] = { get: clone(changed.paths['/v1/devices'].get) };
    const result = await apiCheck(changed);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/lint error: path-parameters-defined/);
    expect(result.stdout).toMatch(/lint error: operation-operationId-unique/);
  });
});

describe('breaking-change rules', () => {
  const base = {
    openapi: '3.1.0',
    paths: {
      '/v1/orders/{orderId}': {
        put: {
          parameters: [
            { name: 'orderId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'dry', in: 'query', schema: { type: 'boolean' } },
          ],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } } },
          responses: {
            200: {
              content: {
                'application/json': {
                  schema: { type: 'object', required: ['total'], properties: { total: { type: 'integer' } } },
                },
              },
            },
          },
          security: [],
        },
      },
    },
    components: {
      schemas: {
        Body: {
          type: 'object',
          required: ['lines'],
          properties: { lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } },
        },
      },
    },
  };
  const ids = (change: (d: any) => void) => {
    const after = clone(base) as any;
    change(after);
    return breakingChanges(base, after).map((b) => b.id);
  };
  const op = (d: any) => d.paths['/v1/orders/{orderId}'].put;

  it('additions are not breaking', () => {
    expect(
      ids((d) => {
        op(d).parameters.push({ name: 'note', in: 'query', schema: { type: 'string' } });
        op(d).responses['200'].content['application/json'].schema.properties.currency = { type: 'string' };
        d.components.schemas.Body.properties.note = { type: 'string' };
        d.paths['/v1/other'] = { get: { responses: {} } };
      }),
    ).toEqual([]);
  });

  it('removals, new requirements, type changes and new authentication are', () => {
    expect(ids((d) => delete d.paths['/v1/orders/{orderId}'])).toEqual(['operation-removed:PUT /v1/orders/{orderId}']);
    expect(ids((d) => (op(d).parameters[1].required = true))).toEqual([
      'parameter-required:PUT /v1/orders/{orderId}:query.dry',
    ]);
    expect(ids((d) => (op(d).parameters[1].schema.type = 'string'))).toEqual([
      'parameter-type-changed:PUT /v1/orders/{orderId}:query.dry',
    ]);
    expect(ids((d) => (d.components.schemas.Body.properties.lines.items.required = ['sku']))).toEqual([
      'request-property-required:PUT /v1/orders/{orderId}:lines[].sku',
    ]);
    expect(
      ids((d) => (op(d).responses['200'].content['application/json'].schema.properties.total.type = 'string')),
    ).toEqual(['response-type-changed:PUT /v1/orders/{orderId}:200:total']);
    expect(ids((d) => (op(d).responses['200'].content['application/json'].schema.required = []))).toEqual([
      'response-property-optional:PUT /v1/orders/{orderId}:200:total',
    ]);
    expect(ids((d) => (op(d).security = [{ bearer: [] }]))).toEqual(['security-added:PUT /v1/orders/{orderId}']);
  });
});
