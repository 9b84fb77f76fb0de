import { Errors } from '../../errors.js';
import type { EndpointGroup } from '../../pipeline/endpoint-builder.js';
import type { HttpContext } from '../../pipeline/http-context.js';
import { Results } from '../../pipeline/results.js';
import { clearSessionCookie, serializeSessionCookie } from '../cookie.js';
import { signUserToken } from '../jwt-bearer.js';
import { authenticationResultOf } from './authentication-result.js';
import { challenge } from './challenge.js';
import { RateLimitPolicies } from './default-rate-limit-policies.js';
import { accessDeniedPage, signInPage } from './dev-signin-page.js';
import { principalOf } from './security-metadata.js';
import { localPath, readSignInInput } from './signin-input.js';
import { systemClock } from '../../clock.js';

export interface DevSignInOptions {
  /** Nothing is mapped unless true: these endpoints let anyone be anyone. */
  development: boolean;
  /** Signs the `hub_session` cookie; the same secret the authentication cookie scheme checks. */
  cookieSecret: string;
  /** Signs the tokens of `GET /auth/dev-token` (config `Auth:Jwt:*`). */
  jwt: { secret: string; issuer: string; audience: string };
  /** Who `/auth/dev-token` speaks for without a session. Default `dev-user` in tenant `demo`. */
  defaultUser?: { sub: string; tenantId: string };
  /** Session lifetime. Default 8 hours. */
  sessionMaxAgeSeconds?: number;
  /** Lifetime of dev tokens. Default 3600. */
  tokenExpiresInSeconds?: number;
  now?: () => number;
}

/** Paths of the development sign-in; `authorization({ pages: DEV_SIGNIN_PAGES })` sends pages here. */
export const DEV_SIGNIN_PAGES = { signInPath: '/auth/signin', accessDeniedPath: '/auth/denied' } as const;
const SIGN_OUT_PATH = '/auth/signout';

const NO_STORE = { 'cache-control': 'no-store' };
const HTML = {
  'content-type': 'text/html; charset=utf-8',
  ...NO_STORE,
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
};

/**
 * Development sign-in (Development only; maps nothing otherwise):
 * - `GET /auth/signin`: a form to pick sub, tenant and role;
 * - `POST /auth/signin` (form or JSON): sets the signed HttpOnly SameSite=Lax session cookie, then
 *   redirects to `returnUrl` (a local path, default `/`) for a form, or answers 204 for JSON;
 * - `POST /auth/signout`: clears it (302 to `/` for a form, else 204);
 * - `GET /auth/dev-token`: `{ token, tenantId, sub }` for the current user, or for the default user
 *   when no credential was sent (401 for a refused one), so the dashboard gets a bearer token for socket.io;
 * - `GET /auth/denied`: the access-denied page.
 * Login CSRF is not defended: another site could sign a developer in as some other user, which in
 * Development, where anyone may pick any identity, gains it nothing.
 */
export function mapDevSignIn(routes: EndpointGroup, options: DevSignInOptions): void {
  if (!options.development) return;
  const { cookieSecret, jwt, now = systemClock.now } = options;
  const defaultUser = options.defaultUser ?? { sub: 'dev-user', tenantId: 'demo' };
  const maxAgeSeconds = options.sessionMaxAgeSeconds ?? 8 * 3600;
  const page = { allowAnonymous: true, page: true };

  routes.get(
    DEV_SIGNIN_PAGES.signInPath,
    ({ http }) => {
      const body = signInPage({
        action: DEV_SIGNIN_PAGES.signInPath,
        returnUrl: localPath(http.query.get('returnUrl')),
        ...defaultUser,
      });
      return Results.bytes(body, HTML);
    },
    { metadata: page },
  );

  routes.post(
    DEV_SIGNIN_PAGES.signInPath,
    ({ http }) => {
      const input = readSignInInput(http, maxAgeSeconds, now());
      if (!input.ok) {
        return Results.problem(
          input.status === 415 ? Errors.HTTP_UNSUPPORTED_MEDIA_TYPE : Errors.HTTP_BAD_REQUEST,
          input.detail,
        );
      }
      const secure = http.origin.startsWith('https:');
      const cookie = serializeSessionCookie(input.principal, cookieSecret, { maxAgeSeconds, secure, now: now() });
      http.log.info({ sub: input.principal.sub, tenantId: input.principal.tenantId }, 'dev sign-in');
      const headers = { 'set-cookie': cookie, ...NO_STORE };
      return input.form ? Results.status(302, { ...headers, location: input.returnUrl }) : Results.noContent(headers);
    },
    { metadata: { allowAnonymous: true, rateLimit: RateLimitPolicies.signin } },
  );

  routes.post(
    SIGN_OUT_PATH,
    ({ http }) => {
      const headers = { 'set-cookie': clearSessionCookie(http.origin.startsWith('https:')), ...NO_STORE };
      const form = (http.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      return form ? Results.status(302, { ...headers, location: '/' }) : Results.noContent(headers);
    },
    { metadata: { allowAnonymous: true } },
  );

  routes.get(
    '/auth/dev-token',
    async ({ http }) => {
      // A refused session must not silently turn into the default user.
      if (authenticationResultOf(http).failure !== undefined)
        return { status: 401, execute: (ctx: HttpContext) => challenge(ctx, undefined) };
      const user = principalOf(http);
      const sub = user?.sub ?? defaultUser.sub;
      const tenantId = user?.tenantId ?? defaultUser.tenantId;
      const token = await signUserToken({
        sub,
        tenantId,
        roles: user?.roles ?? [],
        ...jwt,
        expiresInSeconds: options.tokenExpiresInSeconds ?? 3600,
        now: now(),
      });
      return Results.json({ token, tenantId, sub }, 200, NO_STORE);
    },
    { metadata: { allowAnonymous: true } },
  );

  routes.get(DEV_SIGNIN_PAGES.accessDeniedPath, () => Results.bytes(accessDeniedPage(SIGN_OUT_PATH), HTML, 403), {
    metadata: page,
  });
}
