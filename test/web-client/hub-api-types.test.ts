// Issue 30 item 8: the dashboard's REST client is typed from the public OpenAPI document. The
// committed types are those of the document the hub generates now, and a breaking change of the
// API makes the dashboard's type check fail.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentPublicDocument } from '../../src/tools/api-check/current-document.js';
import { DASHBOARD_API_TYPES, renderApiTypes } from '../../src/tools/api-check/dashboard-api-types.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The dashboard's type check (its tsconfig), with `#hub-api` pointing at the given types. */
function typeCheckDashboardAgainst(types: string): { status: number | null; output: string } {
  // Under the checkout (dist/ is ignored), so the dashboard's packages resolve as they do for it.
  const dir = mkdtempSync(join(ROOT, 'dist', 'hub-api-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'hub-api.d.ts'), types);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'web-client', 'tsconfig.json'),
      compilerOptions: { incremental: false, paths: { '#hub-api': ['./hub-api.d.ts'] } },
      include: [join(ROOT, 'web-client', 'src', '**', '*.ts')],
    }),
  );
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
    { encoding: 'utf8' },
  );
  return { status: r.status, output: r.stdout + r.stderr };
}

describe("the dashboard's typed REST client", () => {
  let document: Record<string, unknown>;
  beforeAll(() => {
    document = currentPublicDocument(mkdtempSync(join(tmpdir(), 'hub-api-root-')));
  }, 60_000);

  it(`${DASHBOARD_API_TYPES} is what npm run api:check generates from the hub's public document now`, async () => {
    expect(readFileSync(join(ROOT, DASHBOARD_API_TYPES), 'utf8')).toBe(await renderApiTypes(document));
  }, 30_000);

  it("a breaking API change (a field the dashboard reads removed) fails the dashboard's type check; the current API passes", async () => {
    const broken = structuredClone(document) as {
      paths: Record<
        string,
        {
          get: {
            responses: Record<
              string,
              { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }
            >;
          };
        }
      >;
    };
    const page = broken.paths['/v1/devices']!.get.responses['200']!.content['application/json']!.schema;
    delete page.properties['nextCursor'];
    page.required = page.required.filter((name) => name !== 'nextCursor');

    const [current, breaking] = [
      typeCheckDashboardAgainst(await renderApiTypes(document)),
      typeCheckDashboardAgainst(await renderApiTypes(broken)),
    ];
    expect(current).toEqual({ status: 0, output: '' });
    expect(breaking.status).not.toBe(0);
    expect(breaking.output).toMatch(/devices-api\.ts[^\n]*error TS\d+:[^\n]*nextCursor/);
  }, 180_000);
});
