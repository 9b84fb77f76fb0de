import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from '../host/command-line.js';

const API_CHECK_USAGE = `usage: npm run api:check -- [--document FILE] [--published DIR] [--acknowledged FILE] [--portal DIR]

Lints the public OpenAPI document and diffs it against the newest one in api/published/; a breaking
change fails unless listed in api/acknowledged-breaks.json. A passing document is archived and the
portal built. Checking the hub's own document, it also regenerates the dashboard's REST types
(web-client/src/api/hub-api.d.ts) and type-checks the dashboard against them.
  --document      the document to check (default: the hub's public document as composed now)
  --published     the archive of published documents (default: api/published)
  --acknowledged  the acknowledged breaking changes (default: api/acknowledged-breaks.json)
  --portal        where the portal is built (default: api/portal)
Exit codes: 0 passed, 1 lint errors, unacknowledged breaking changes or a dashboard that no longer
compiles against the API, 64 a bad command line.`;

/**
 * `npm run api:check`. Without `--document`, the public document of the hub as composed now
 * (Development defaults; nothing is started).
 */
const { values: args } = commandLine({
  name: 'api:check',
  usage: API_CHECK_USAGE,
  options: {
    document: { type: 'string' },
    published: { type: 'string' },
    acknowledged: { type: 'string' },
    portal: { type: 'string' },
  },
});
const root = process.cwd();
// Loaded after the command line is read: the linter, the generator and the composed hub take seconds
// to import, which --help and a mistyped flag should not wait for.
const [{ apiCheck }, { currentPublicDocument }, { DASHBOARD_API_TYPES, renderApiTypes }] = await Promise.all([
  import('./api-check/api-check.js'),
  import('./api-check/current-document.js'),
  import('./api-check/dashboard-api-types.js'),
]);

const document = args.document
  ? (JSON.parse(readFileSync(args.document, 'utf8')) as Record<string, unknown>)
  : currentPublicDocument(root);

const result = await apiCheck({
  document,
  publishedDir: args.published ?? join(root, 'api', 'published'),
  acknowledgedFile: args.acknowledged ?? join(root, 'api', 'acknowledged-breaks.json'),
  portalDir: args.portal ?? join(root, 'api', 'portal'),
});
for (const w of result.lintWarnings) console.log(`lint warning: ${w}`);
for (const e of result.lintErrors) console.log(`lint error: ${e}`);
console.log(
  result.baseline ? `compared with published ${result.baseline}` : 'no published version yet: nothing to compare',
);
for (const b of result.acknowledged) console.log(`acknowledged breaking change: ${b.id}`);
for (const b of result.breaks)
  console.log(
    `BREAKING CHANGE ${b.id}: ${b.message} (acknowledge it in api/acknowledged-breaks.json, or make it in a new major version)`,
  );
if (result.versionProblem) console.log(`VERSION: ${result.versionProblem}`);

/** The dashboard's REST types from the hub's document, then the dashboard's type check against them. */
async function dashboardCompiles(): Promise<boolean> {
  const file = join(root, DASHBOARD_API_TYPES);
  const types = await renderApiTypes(document);
  // Unchanged types are not rewritten: a new mtime alone would make the next build rebuild the dashboard.
  if (!existsSync(file) || readFileSync(file, 'utf8') !== types) {
    writeFileSync(file, types);
    console.log(`wrote ${DASHBOARD_API_TYPES}`);
  }
  const tsc = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'web-client/tsconfig.json')],
    { cwd: root, encoding: 'utf8' },
  );
  process.stdout.write(tsc.stdout);
  if (tsc.status !== 0)
    console.log('DASHBOARD: the dashboard does not compile against this API (see above); change it with the API');
  return tsc.status === 0;
}
const dashboardOk = args.document === undefined ? await dashboardCompiles() : true;

const ok = result.ok && dashboardOk;
console.log(ok ? 'api:check passed; document archived and portal built' : 'api:check failed');
process.exit(ok ? 0 : 1);
