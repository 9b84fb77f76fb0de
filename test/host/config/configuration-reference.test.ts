import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APP_CONFIG_KEYS } from '../../../src/compose/app-config-keys.js';
import { CONFIGURATION_SECTIONS } from '../../../src/compose/configuration-sections.js';
import { GATEWAY_KEYS } from '../../../src/compose/keys/gateway-keys.js';
import { configurationReference } from '../../../src/host/config/configuration-reference.js';
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../../../src/tools/config-reference-cli.js';

// Issue 26 item 5: the configuration reference is generated from the key tables; the committed
// file must be what the tables say today (regenerate with `npm run docs:config`).

describe('docs/configuration.md', () => {
  it('is what the key tables generate (run `npm run docs:config` after changing a key)', () => {
    const committed = readFileSync(CONFIGURATION_DOC, 'utf8');
    expect(committed).toBe(renderConfigurationDoc(committed));
  });

  it('lists every key the hub and the gateway read, each with what it means', () => {
    const listed = CONFIGURATION_SECTIONS.flatMap((s) => s.areas.flatMap((a) => a.keys));
    const names = new Set(listed.map((k) => k.key));
    expect([...APP_CONFIG_KEYS, ...GATEWAY_KEYS].map((k) => k.key).filter((k) => !names.has(k))).toEqual([]);
    expect(listed.filter((k) => !k.doc?.trim()).map((k) => k.key)).toEqual([]);
  });

  it('states every default the code has: a changed default changes the reference', () => {
    const key = { key: 'Test:Limit', parse: (raw: unknown) => Number(raw), default: () => 5, doc: 'a limit' };
    const before = configurationReference('# t', [{ title: 'T', intro: '', areas: [{ name: 'A', keys: [key] }] }]);
    const after = configurationReference('# t', [
      { title: 'T', intro: '', areas: [{ name: 'A', keys: [{ ...key, default: () => 6 }] }] },
    ]);
    expect(before).toContain('| `5` |');
    expect(after).toContain('| `6` |');
    expect(
      configurationReference('# t', [
        {
          title: 'T',
          intro: '',
          areas: [
            {
              name: 'A',
              keys: [{ ...key, default: (c: { environment: string }) => (c.environment === 'Development' ? 1 : 2) }],
            },
          ],
        },
      ]),
    ).toContain('`1` in Development, else `2`');
  });
});
