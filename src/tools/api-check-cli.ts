import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { composeApplication } from '../app/compose-application.js';
import { loadConfig } from '../app/load-app-config.js';
import { openApiDocument } from '../app/openapi-endpoints.js';
import { apiCheck } from './api-check/api-check.js';

/**
 * `npm run api:check [-- --document FILE] [--published DIR] [--acknowledged FILE] [--portal DIR]`.
 * Without `--document`, the public document of the hub as composed now (Development defaults; nothing
 * is started). Exit 0 when it passes, 1 when lint errors or unacknowledged breaking changes remain.
 */
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const root = process.cwd();

function currentDocument(): Record<string, unknown> {
  const file = args.get('document');
  if (file) return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const config = loadConfig({ args: ['--Simulator:Devices=0'], env: { HUB_ENVIRONMENT: 'Development' }, contentRoot: root });
  const app = composeApplication(config, pino({ level: 'silent' }));
  return openApiDocument(app.web.endpoints, 'public');
}

const result = await apiCheck({
  document: currentDocument(),
  publishedDir: args.get('published') ?? join(root, 'api', 'published'),
  acknowledgedFile: args.get('acknowledged') ?? join(root, 'api', 'acknowledged-breaks.json'),
  portalDir: args.get('portal') ?? join(root, 'api', 'portal'),
});
for (const w of result.lintWarnings) console.log(`lint warning: ${w}`);
for (const e of result.lintErrors) console.log(`lint error: ${e}`);
console.log(result.baseline ? `compared with published ${result.baseline}` : 'no published version yet: nothing to compare');
for (const b of result.acknowledged) console.log(`acknowledged breaking change: ${b.id}`);
for (const b of result.breaks) console.log(`BREAKING CHANGE ${b.id}: ${b.message} (acknowledge it in api/acknowledged-breaks.json, or make it in a new major version)`);
if (result.versionProblem) console.log(`VERSION: ${result.versionProblem}`);
console.log(result.ok ? 'api:check passed; document archived and portal built' : 'api:check failed');
process.exit(result.ok ? 0 : 1);
