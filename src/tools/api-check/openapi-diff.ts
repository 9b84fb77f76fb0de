/**
 * Breaking changes between two OpenAPI 3.1 documents, by the rules of docs/http-api.md, "Versioning and API descriptions":
 * removing an operation, a response field or a success status; making a request value required that
 * was optional or absent; changing a type; requiring authentication where none was. Each break has a
 * stable id so it can be acknowledged in `api/acknowledged-breaks.json`.
 */
export interface BreakingChange {
  /** e.g. `response-property-removed:GET /v1/orders:200:items[].total` */
  readonly id: string;
  readonly message: string;
}

type Doc = Record<string, any>;
type Schema = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

export function breakingChanges(before: Doc, after: Doc): BreakingChange[] {
  const out: BreakingChange[] = [];
  const add = (kind: string, where: string, message: string) => out.push({ id: `${kind}:${where}`, message });
  for (const [path, item] of Object.entries<Doc>(before.paths ?? {})) {
    for (const method of METHODS) {
      const was = item[method] as Doc | undefined;
      if (!was) continue;
      const op = `${method.toUpperCase()} ${path}`;
      const now = after.paths?.[path]?.[method] as Doc | undefined;
      if (!now) {
        add('operation-removed', op, `${op} was removed`);
        continue;
      }
      if ((was.security ?? []).length === 0 && (now.security ?? []).length > 0)
        add('security-added', op, `${op} now requires authentication`);
      compareParameters(before, after, op, was, now, add);
      const reqBefore = firstSchema(was.requestBody?.content);
      const reqAfter = firstSchema(now.requestBody?.content);
      if (reqAfter && !reqBefore) add('request-body-added', op, `${op} now requires a request body`);
      if (reqBefore && reqAfter) compareRequest(before, after, `${op}`, reqBefore, reqAfter, '', add);
      for (const [status, response] of Object.entries<Doc>(was.responses ?? {})) {
        const nowResponse = now.responses?.[status] as Doc | undefined;
        if (!nowResponse) {
          if (/^2/.test(status)) add('response-status-removed', `${op}:${status}`, `${op} no longer answers ${status}`);
          continue;
        }
        const a = firstSchema(response.content);
        const b = firstSchema(nowResponse.content);
        if (a && b) compareResponse(before, after, `${op}:${status}`, a, b, '', add);
        else if (a && !b) add('response-body-removed', `${op}:${status}`, `${op} ${status} no longer has a body`);
      }
    }
  }
  return out;
}

function compareParameters(before: Doc, after: Doc, op: string, was: Doc, now: Doc, add: Add): void {
  const key = (p: Doc) => `${p.in}.${p.name}`;
  const nowParams = new Map<string, Doc>((now.parameters ?? []).map((p: Doc) => [key(p), p]));
  const wasParams = new Map<string, Doc>((was.parameters ?? []).map((p: Doc) => [key(p), p]));
  for (const [k, p] of wasParams) {
    const n = nowParams.get(k);
    if (!n) add('parameter-removed', `${op}:${k}`, `${op} no longer takes ${k}`);
    else {
      if (n.required && !p.required) add('parameter-required', `${op}:${k}`, `${op} now requires ${k}`);
      if (typeOf(before, p.schema) !== typeOf(after, n.schema))
        add('parameter-type-changed', `${op}:${k}`, `${op} ${k} changed type`);
    }
  }
  for (const [k, n] of nowParams) {
    if (!wasParams.has(k) && n.required) add('parameter-required', `${op}:${k}`, `${op} now requires the new ${k}`);
  }
}

type Add = (kind: string, where: string, message: string) => void;

/** A client sending the old shape must still be accepted. */
function compareRequest(before: Doc, after: Doc, op: string, a: Schema, b: Schema, at: string, add: Add): void {
  const s = resolve(before, a);
  const t = resolve(after, b);
  if (typeOf(before, s) !== typeOf(after, t))
    return void add('request-type-changed', `${op}:${at || 'body'}`, `${op} ${at || 'body'} changed type`);
  if (s.type === 'array' && s.items && t.items)
    return compareRequest(before, after, op, s.items, t.items, `${at}[]`, add);
  const required = new Set<string>(s.required ?? []);
  for (const name of t.required ?? []) {
    if (!required.has(name))
      add('request-property-required', `${op}:${join(at, name)}`, `${op} now requires ${join(at, name)}`);
  }
  for (const [name, sub] of Object.entries<Schema>(s.properties ?? {})) {
    const next = t.properties?.[name];
    if (next) compareRequest(before, after, op, sub, next, join(at, name), add);
    else if (t.additionalProperties === false)
      add('request-property-removed', `${op}:${join(at, name)}`, `${op} no longer accepts ${join(at, name)}`);
  }
}

/** A client reading the old shape must still find every field it read, of the same type. */
function compareResponse(before: Doc, after: Doc, where: string, a: Schema, b: Schema, at: string, add: Add): void {
  const s = resolve(before, a);
  const t = resolve(after, b);
  if (typeOf(before, s) !== typeOf(after, t))
    return void add('response-type-changed', `${where}:${at || 'body'}`, `${where} ${at || 'body'} changed type`);
  if (s.type === 'array' && s.items && t.items)
    return compareResponse(before, after, where, s.items, t.items, `${at}[]`, add);
  const required = new Set<string>(t.required ?? []);
  for (const name of s.required ?? []) {
    if (!required.has(name) && t.properties?.[name])
      add('response-property-optional', `${where}:${join(at, name)}`, `${where} ${join(at, name)} may now be absent`);
  }
  for (const [name, sub] of Object.entries<Schema>(s.properties ?? {})) {
    const next = t.properties?.[name];
    if (!next)
      add('response-property-removed', `${where}:${join(at, name)}`, `${where} no longer returns ${join(at, name)}`);
    else compareResponse(before, after, where, sub, next, join(at, name), add);
  }
}

const join = (at: string, name: string) => (at ? `${at}.${name}` : name);

function firstSchema(content: Doc | undefined): Schema | undefined {
  if (!content) return undefined;
  const first = Object.values<Doc>(content)[0];
  return first?.schema as Schema | undefined;
}

function resolve(doc: Doc, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 16 && typeof s?.$ref === 'string'; i++) {
    const parts = (s.$ref as string).replace(/^#\//, '').split('/');
    s = parts.reduce<any>((node, part) => node?.[part], doc) ?? {};
  }
  return s ?? {};
}

function typeOf(doc: Doc, schema: Schema | undefined): string {
  const t = resolve(doc, schema ?? {}).type;
  return Array.isArray(t) ? [...t].sort().join('|') : String(t ?? 'any');
}
