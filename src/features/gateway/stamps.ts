import { ID_PATTERN } from '../../host/ids.js';
/**
 * Stamps: pools of hub instances that serve tenants. A pool is shared by many tenants, a silo is a
 * stamp that one tenant has to itself; to the gateway both are a name and a list of instance URLs.
 */
export interface Stamp {
  readonly name: string;
  /** Base URLs of the stamp's hub instances, e.g. `http://10.0.0.5:8080`. */
  readonly instances: readonly string[];
}

const NAME = ID_PATTERN;

/**
 * `Gateway:Stamps`: `name=url url; name=url`, e.g.
 * `pool-1=http://10.0.0.5:8080 http://10.0.0.6:8080; silo-acme=http://10.0.1.5:8080`.
 * Throws a short reason (the loader names the key).
 */
export function parseStamps(raw: string | number | boolean): Stamp[] {
  const stamps: Stamp[] = [];
  for (const part of String(raw)
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    const name = eq > 0 ? part.slice(0, eq).trim() : '';
    if (!NAME.test(name))
      throw new Error(`'${part}' must start with a stamp name and '=' (name: letters, digits, _ . -)`);
    if (stamps.some((s) => s.name === name)) throw new Error(`stamp '${name}' is named twice`);
    const instances = part
      .slice(eq + 1)
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((u) => instanceUrl(u, name));
    if (instances.length === 0) throw new Error(`stamp '${name}' lists no instance URL`);
    stamps.push({ name, instances });
  }
  if (stamps.length === 0) throw new Error('must name at least one stamp');
  return stamps;
}

function instanceUrl(raw: string, stamp: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`'${raw}' of stamp '${stamp}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`'${raw}' of stamp '${stamp}' must be http:// or https://`);
  if (url.pathname !== '/' || url.search !== '' || url.username !== '')
    throw new Error(`'${raw}' of stamp '${stamp}' must be a base URL without path, query or credentials`);
  return url.origin;
}

/** `Gateway:Tenants`: `tenant=stamp, tenant=stamp` (the in-memory tenant catalogue). */
export function parseTenantMap(raw: string | number | boolean): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of String(raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [tenant, stamp, extra] = pair.split('=').map((s) => s.trim());
    if (!tenant || !stamp || extra !== undefined) throw new Error(`'${pair}' must be tenant=stamp`);
    if (map.has(tenant)) throw new Error(`tenant '${tenant}' is named twice`);
    map.set(tenant, stamp);
  }
  return map;
}
