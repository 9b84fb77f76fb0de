import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIGURATION_SECTIONS } from '../compose/configuration-sections.js';
import { commandLine } from '../host/command-line.js';
import { configurationReference } from '../host/config/configuration-reference.js';
import { packageRoot } from '../host/package-root.js';

/** Where the hand-written part of docs/configuration.md ends and the generated tables begin. */
export const GENERATED_MARKER =
  '<!-- Everything below is generated from the key tables by `npm run docs:config`; edit the tables, not this file. -->';

/** docs/configuration.md as it should be: its hand-written preamble, then the tables from the key definitions. */
export function renderConfigurationDoc(current: string): string {
  const at = current.indexOf(GENERATED_MARKER);
  if (at < 0) throw new Error(`docs/configuration.md has no marker line: ${GENERATED_MARKER}`);
  return configurationReference(current.slice(0, at + GENERATED_MARKER.length), CONFIGURATION_SECTIONS);
}

export const CONFIGURATION_DOC = join(packageRoot(), 'docs', 'configuration.md');

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  commandLine({
    name: 'docs:config',
    usage:
      'usage: npm run docs:config\n\nRegenerates docs/configuration.md from the key tables (src/host/config/host-keys.ts, src/compose/keys/*-keys.ts).',
    options: {},
  });
  const next = renderConfigurationDoc(readFileSync(CONFIGURATION_DOC, 'utf8'));
  writeFileSync(CONFIGURATION_DOC, next);
  console.log(`wrote ${CONFIGURATION_DOC}`);
}
