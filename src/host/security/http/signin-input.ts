import type { HttpContext } from '../../pipeline/http-context.js';
import { mediaType } from '../../pipeline/routing.js';
import { principalFromFields, type Principal } from '../principal.js';

/** What the sign-in form or JSON body asks for. */
export type SignInInput =
  | { ok: true; principal: Principal; returnUrl: string; form: boolean }
  | { ok: false; status: 400 | 415; detail: string };

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/**
 * Reads `sub`, `tenant` and roles from a form (`role`, repeatable, empty = none) or a JSON body
 * (`{ sub, tenant, roles?: string[] }`), plus the form's `returnUrl`.
 */
export function readSignInInput(ctx: HttpContext, maxAgeSeconds: number, now: number): SignInInput {
  const type = mediaType(ctx);
  let fields: { sub: unknown; tenantId: unknown; roles: unknown };
  let returnUrl: unknown;
  if (type === FORM) {
    const form = new URLSearchParams(ctx.body!.toString('utf8'));
    fields = { sub: form.get('sub'), tenantId: form.get('tenant'), roles: form.getAll('role').filter(Boolean) };
    returnUrl = form.get('returnUrl');
  } else if (type === JSON_TYPE) {
    let body: unknown;
    try {
      body = JSON.parse(ctx.body!.toString('utf8'));
    } catch {
      return { ok: false, status: 400, detail: 'The body is not valid JSON.' };
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return { ok: false, status: 400, detail: 'The body must be a JSON object.' };
    const b = body as Record<string, unknown>;
    fields = { sub: b['sub'], tenantId: b['tenant'], roles: b['roles'] };
  } else if (type === undefined) {
    return { ok: false, status: 400, detail: 'A body is required.' };
  } else {
    return { ok: false, status: 415, detail: `Send ${FORM} or ${JSON_TYPE}.` };
  }
  const checked = principalFromFields(fields, 'cookie', now + maxAgeSeconds * 1000);
  if (!checked.ok) return { ok: false, status: 400, detail: `Cannot sign in: ${checked.reason}.` };
  return { ok: true, principal: checked.principal, returnUrl: localPath(returnUrl), form: type === FORM };
}

/**
 * `value` when it is a path on this site, else `/`. `//host` and `/\host` are read by browsers as
 * other sites, which would make sign-in an open redirect.
 */
export function localPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || /^\/[/\\]/.test(value) || /[\u0000-\u001f]/.test(value))
    return '/';
  return value;
}
