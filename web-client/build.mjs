// Builds the dashboard with Vite when its sources are newer than the last build, so `npm start`
// and `npm test` do not pay for a rebuild they do not need.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const output = fileURLToPath(new URL('../dist/web-client/index.html', import.meta.url));

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const sources = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json'].map((p) => join(here, p)).filter(existsSync);
const builtAt = existsSync(output) ? statSync(output).mtimeMs : 0;
if (process.argv.includes('--force') || sources.some((s) => newest(s) > builtAt)) {
  await build({ configFile: join(here, 'vite.config.ts'), logLevel: 'warn' });
  console.log('dashboard built');
}
