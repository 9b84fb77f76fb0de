import { ENVIRONMENTS, type DefaultContext, type EnvironmentName, type KeyDefinition } from './key-definition.js';
import { acceptsOf } from './parsers.js';

/** One table of the reference: a program's keys (the hub's, the gateway's), by area. */
export interface ReferenceSection {
  readonly title: string;
  readonly intro: string;
  readonly areas: readonly { readonly name: string; readonly keys: readonly KeyDefinition[] }[];
}

/**
 * The configuration reference (docs/configuration.md) as Markdown, from the key tables themselves:
 * each key's meaning (`doc`), its default (`defaultDoc`, or what `default()` gives in Production and,
 * when it differs, in Development), what its parser accepts, and its environment variable.
 */
export function configurationReference(preamble: string, sections: readonly ReferenceSection[]): string {
  const out = [preamble.trimEnd(), ''];
  for (const section of sections) {
    out.push(`## ${section.title}`, '', section.intro.trimEnd(), '');
    for (const area of section.areas) {
      out.push(`### ${area.name}`, '', '| key | default | value | meaning |', '|---|---|---|---|');
      for (const def of area.keys) out.push(row(def));
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function row(def: KeyDefinition): string {
  const env = [`\`${def.key.replace(/:/g, '__')}\``, ...(def.envAliases ?? []).map((a) => `\`${a}\``)].join(', ');
  const key = `\`${def.key}\`<br>env ${env}`;
  const meaning = `${def.doc ?? ''}${def.secret ? ' (secret: never logged)' : ''}`;
  return `| ${cell(key)} | ${cell(defaultOf(def))} | ${cell(acceptsOf(def.parse))} | ${cell(meaning)} |`;
}

function defaultOf(def: KeyDefinition): string {
  if (def.defaultDoc !== undefined) return def.defaultDoc;
  const byEnvironment = new Map<EnvironmentName, string>(ENVIRONMENTS.map((e) => [e, valueIn(def, e)]));
  const production = byEnvironment.get('Production')!;
  const development = byEnvironment.get('Development')!;
  return development === production ? production : `${development} in Development, else ${production}`;
}

function valueIn(def: KeyDefinition, environment: EnvironmentName): string {
  const ctx: DefaultContext = { environment, get: () => undefined };
  let value: unknown;
  try {
    value = def.default?.(ctx);
  } catch {
    value = undefined;
  }
  if (value === undefined) return def.required?.(ctx) ? 'required' : 'unset';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `\`${value.join(', ')}\``;
  return `\`${String(value)}\``;
}

/** A table cell: no line breaks or unescaped pipes inside it. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
