/**
 * Route templates in the ASP.NET spelling: literals, `{name}`, `{name:constraint}`, `{name?}` as the
 * last segment, and a catch-all `{*rest}`. Literal segments may hold a colon (`/api/hubs/{hub}/:send`).
 */

export type Constraint = (value: string) => boolean;

/** Built-in constraints; the names users know from ASP.NET. */
const CONSTRAINTS: Record<string, (arg?: string) => Constraint> = {
  int: () => (v) => /^-?\d{1,15}$/.test(v),
  alpha: () => (v) => /^[A-Za-z]+$/.test(v),
  guid: () => (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  minlength: (a) => (v) => v.length >= Number(a),
  maxlength: (a) => (v) => v.length <= Number(a),
  regex: (a) => {
    const re = new RegExp(`^(?:${a ?? ''})$`);
    return (v) => re.test(v);
  },
};

export type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string; constraints: Constraint[]; optional: boolean }
  | { kind: 'catchall'; name: string };

export interface RouteTemplate {
  readonly text: string;
  readonly segments: readonly Segment[];
  /**
   * Higher is more specific, compared segment by segment: literal > constrained parameter >
   * parameter > catch-all. Candidates with equal precedence and order are ambiguous.
   */
  readonly precedence: readonly number[];
}

const RANK = { literal: 4, constrained: 3, param: 2, catchall: 1 } as const;

export function parseTemplate(text: string): RouteTemplate {
  if (!text.startsWith('/')) throw new Error(`route template '${text}' must start with '/'`);
  const parts = text === '/' ? [] : text.slice(1).replace(/\/$/, '').split('/');
  const segments: Segment[] = parts.map((part, i) => {
    const m = /^\{(\*)?([A-Za-z_][A-Za-z0-9_]*)(\?)?((?::[a-z]+(?:\([^)]*\))?)*)\}$/.exec(part);
    if (!m) {
      if (part.includes('{') || part.includes('}')) throw new Error(`route template '${text}': bad segment '${part}'`);
      return { kind: 'literal', text: part };
    }
    const [, star, name, optional, constraintText] = m;
    if (star) {
      if (i !== parts.length - 1) throw new Error(`route template '${text}': a catch-all must be the last segment`);
      return { kind: 'catchall', name: name! };
    }
    if (optional && i !== parts.length - 1)
      throw new Error(`route template '${text}': only the last parameter may be optional`);
    const constraints = [...(constraintText ?? '').matchAll(/:([a-z]+)(?:\(([^)]*)\))?/g)].map(([, cname, arg]) => {
      const make = CONSTRAINTS[cname!];
      if (!make) throw new Error(`route template '${text}': unknown constraint '${cname}'`);
      try {
        return make(arg);
      } catch (err) {
        // A bad `regex(…)` argument: name the template, as every other template error does.
        throw new Error(`route template '${text}': constraint '${cname}': ${(err as Error).message}`);
      }
    });
    return { kind: 'param', name: name!, constraints, optional: Boolean(optional) };
  });
  const precedence = segments.map((s) =>
    s.kind === 'literal'
      ? RANK.literal
      : s.kind === 'catchall'
        ? RANK.catchall
        : s.constraints.length
          ? RANK.constrained
          : RANK.param,
  );
  return { text, segments, precedence };
}

export interface TemplateMatch {
  values: Record<string, string>;
  /** False when the path fits but a parameter constraint rejects its value. */
  constraintsOk: boolean;
}

/** Does the path fit the template's shape? Constraints are reported separately (routing step 3). */
export function matchTemplate(template: RouteTemplate, pathSegments: readonly string[]): TemplateMatch | null {
  const { segments } = template;
  const values: Record<string, string> = {};
  let constraintsOk = true;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.kind === 'catchall') {
      values[seg.name] = pathSegments.slice(i).map(safeDecode).join('/');
      return { values, constraintsOk };
    }
    const part = pathSegments[i];
    if (part === undefined) {
      if (seg.kind === 'param' && seg.optional && i === pathSegments.length) return { values, constraintsOk };
      return null;
    }
    if (seg.kind === 'literal') {
      if (part.toLowerCase() !== seg.text.toLowerCase()) return null;
      continue;
    }
    if (part === '') return null;
    const value = safeDecode(part);
    values[seg.name] = value;
    if (!seg.constraints.every((c) => c(value))) constraintsOk = false;
  }
  return pathSegments.length === segments.length ? { values, constraintsOk } : null;
}

export function splitPath(path: string): string[] {
  if (path === '/' || path === '') return [];
  return path.slice(1).replace(/\/$/, '').split('/');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function comparePrecedence(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
