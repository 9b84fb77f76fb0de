import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_CONFIG_KEYS as SCHEMA } from '../../../src/app/app-config-keys.js';

// Issue 12: every HTTP cap is a configuration key, in the README's configuration table with its default.

const README = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');

describe('the Http:* configuration keys', () => {
  const keys = SCHEMA.filter((d) => d.key.startsWith('Http:')).map((d) => d.key);

  it.each(keys)('%s has a row in the README configuration table naming its default', (key) => {
    const row = README.split('\n').find((line) => line.startsWith('| ') && line.includes(`\`${key}\``));
    expect(row, `no README row for ${key}`).toBeDefined();
    const def = SCHEMA.find((d) => d.key === key)!;
    const production = def.default?.({ environment: 'Production', get: () => undefined });
    const cells = row!.split('|').map((c) => c.trim());
    if (production === undefined) expect(cells[2]).toMatch(/unset/);
    else expect(cells[2]).toContain(String(production));
  });
});
