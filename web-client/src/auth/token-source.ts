/** Who the dashboard acts as, and the bearer token that proves it. */
export interface Credentials {
  token: string;
  tenantId: string;
  sub: string;
}

/** Where credentials come from. One function so a cookie sign-in can replace the dev token later. */
export type TokenSource = (fetchFn?: typeof fetch) => Promise<Credentials>;

/** Thrown when no credentials can be obtained (e.g. the dev token route is absent outside Development). */
export class SignInRequiredError extends Error {
  constructor(readonly status: number) {
    super(`sign-in required (HTTP ${status})`);
    this.name = 'SignInRequiredError';
  }
}

/**
 * Development token source: `GET /auth/dev-token` → `{ token, tenantId, sub }` for the demo tenant.
 * A cookie sign-in would instead call e.g. `GET /auth/session` with `credentials: 'include'` and return the same shape.
 */
export const devTokenSource: TokenSource = async (fetchFn = fetch) => {
  const res = await fetchFn('/auth/dev-token', { headers: { accept: 'application/json' }, cache: 'no-store' });
  if (!res.ok) throw new SignInRequiredError(res.status);
  const body = (await res.json()) as Partial<Credentials>;
  if (typeof body.token !== 'string' || typeof body.tenantId !== 'string') throw new SignInRequiredError(res.status);
  return { token: body.token, tenantId: body.tenantId, sub: typeof body.sub === 'string' ? body.sub : '' };
};
