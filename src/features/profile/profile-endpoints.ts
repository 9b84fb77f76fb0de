import { HubError } from '../../host/errors.js';
import { describedEndpoint, type BoundRequest } from '../../host/openapi/schema-binder.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import { Results } from '../../host/pipeline/results.js';
import { apply, replace, type ProfileValues } from './field-ownership.js';
import { APPLY_PROFILE_API, GET_PROFILE_API, PUT_PROFILE_API } from './profile-api.js';
import { PROFILE_STORE, type StoredProfile } from './profile-store.js';
import { principalOf } from '../../host/security/http/security-metadata.js';

/**
 * `GET|PUT|PATCH /v1/profile`: the caller's own profile (tenant and `sub` from the token). The ETag is
 * the version; `If-Match` makes a write conditional (412 when stale); `requireIfMatch` refuses writes
 * without it (428). PATCH is server-side apply (`application/apply-patch+json`, `fieldManager`, `force`).
 * The store (`PROFILE_STORE`) comes from the request's services.
 */
export function mapProfileEndpoints(v1: EndpointGroup, options: { requireIfMatch: boolean }): void {
  v1.get<BoundRequest>(
    '/profile',
    async ({ http }) => {
      const { tenantId, sub } = who(http);
      return answer(await http.services.resolve(PROFILE_STORE).get(tenantId, sub));
    },
    describedEndpoint(GET_PROFILE_API),
  );

  v1.put<BoundRequest<{ fieldManager?: string }, ProfileValues>>(
    '/profile',
    async ({ http, args }) => {
      const { tenantId, sub } = who(http);
      const manager = args.query.fieldManager ?? 'default';
      const body = { email: args.body.email, phone: args.body.phone };
      return answer(
        await http.services
          .resolve(PROFILE_STORE)
          .write(tenantId, sub, precondition(http, options.requireIfMatch), (current) =>
            replace(current, body, manager),
          ),
      );
    },
    describedEndpoint(PUT_PROFILE_API),
  );

  v1.map<BoundRequest<{ fieldManager: string; force?: boolean }, Partial<ProfileValues>>>(
    ['PATCH'],
    '/profile',
    async ({ http, args }) => {
      const { tenantId, sub } = who(http);
      const { fieldManager, force = false } = args.query;
      const stored = await http.services
        .resolve(PROFILE_STORE)
        .write(tenantId, sub, precondition(http, options.requireIfMatch), (current) => {
          const result = apply(current, args.body, fieldManager, force);
          if ('conflicts' in result) {
            const names = result.conflicts.map((c) => `${c.field} (managed by ${c.managers.join(', ')})`).join('; ');
            throw new HubError(
              'PROFILE_FIELD_CONFLICT',
              `Apply by ${fieldManager} would change fields other managers own: ${names}. Drop them or resend with force=true.`,
              {
                conflicts: result.conflicts,
              },
            );
          }
          return result;
        });
      return answer(stored);
    },
    describedEndpoint(APPLY_PROFILE_API),
  );
}

function who(http: HttpContext): { tenantId: string; sub: string } {
  const principal = principalOf(http);
  if (principal === null) throw new Error(`${http.originalPath} ran without a user`);
  return { tenantId: principal.tenantId, sub: principal.sub };
}

function answer(profile: StoredProfile) {
  return Results.json(profile.values, 200, { etag: `"${profile.version}"`, 'cache-control': 'private, no-cache' });
}

/** The versions If-Match accepts: strong ETags only (a weak one never matches, as RFC 9110 says). */
function precondition(http: HttpContext, required: boolean): (number | '*')[] | undefined {
  const header = http.headers['if-match'];
  if (header === undefined) {
    if (required) throw new HubError('PROFILE_PRECONDITION_REQUIRED', 'Send If-Match with the ETag you read.');
    return undefined;
  }
  const out: (number | '*')[] = [];
  for (const part of String(header)
    .split(',')
    .map((s) => s.trim())) {
    if (part === '*') out.push('*');
    const m = /^"(\d{1,9})"$/.exec(part);
    if (m) out.push(Number(m[1]));
  }
  return out;
}
