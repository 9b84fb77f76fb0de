import { createHash } from 'node:crypto';
import type { SelectedEndpoint } from '../../host/pipeline/http-context.js';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import type { Middleware, RequestDelegate } from '../../host/pipeline/middleware.js';
import { bufferedBody } from './cached-response.js';

/**
 * What a GET endpoint tells clients and shared caches (endpoint metadata `responseCache`).
 * `private`: per-user data, stored by the user's own client only; `public` with `sharedMaxAgeSeconds`
 * (s-maxage): no user data in the body, so a proxy or CDN may serve it to anyone.
 */
export type ResponseCachePolicy =
  | { readonly scope: 'private'; readonly maxAgeSeconds: number }
  | { readonly scope: 'public'; readonly maxAgeSeconds: number; readonly sharedMaxAgeSeconds: number };

export const RESPONSE_CACHE_METADATA = 'responseCache';

/**
 * The Cache-Control value of a policy. Private with max-age 0 is `no-cache`: the client stores it
 * but revalidates every time. Public spells `max-age=0` instead, because shared caches such as
 * nginx store nothing marked `no-cache`, while `s-maxage` alone decides for them.
 */
export function cacheControlOf(policy: ResponseCachePolicy): string {
  if (policy.scope === 'public')
    return `public, max-age=${policy.maxAgeSeconds}, s-maxage=${policy.sharedMaxAgeSeconds}`;
  return policy.maxAgeSeconds === 0 ? 'private, no-cache' : `private, max-age=${policy.maxAgeSeconds}`;
}

/** A strong validator from the exact bytes: equal bodies, equal ETags, on every instance. */
export function strongEtag(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** If-None-Match (a list, `*`, weak or strong) against an ETag, by the weak comparison RFC 9110 asks for. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((candidate) => {
    const c = candidate.trim();
    return c === '*' || c.replace(/^W\//, '') === bare;
  });
}

function policyOf(endpoint: SelectedEndpoint | null): ResponseCachePolicy | undefined {
  return endpoint?.metadata[RESPONSE_CACHE_METADATA] as ResponseCachePolicy | undefined;
}

/**
 * States the caching policy of successful GET/HEAD answers and revalidates them: `Cache-Control`,
 * `Vary` (Authorization and Cookie on private answers, since the same client may sign in as someone
 * else), a strong `ETag` from the body (unless the endpoint set its own), and 304 with no body when
 * If-None-Match holds it. Runs on the way out, inside the output cache, so what the output cache
 * stores already carries these headers (a hit needs no hashing; the output cache answers
 * If-None-Match itself). Errors and anything not 200 are left as they are (problems say `no-store`).
 */
export function responseCaching(): Middleware {
  // The endpoint is selected before this runs: one without a policy costs nothing here.
  return (ctx, next) => (policyOf(ctx.endpoint) === undefined ? next(ctx) : withPolicy(ctx, next));
}

async function withPolicy(ctx: HttpContext, next: RequestDelegate): Promise<void> {
  await next(ctx);
  const policy = policyOf(ctx.endpoint);
  if (policy === undefined || ctx.error !== undefined || ctx.response.hijacked) return;
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.response.status !== 200) return;
  applyPolicy(ctx, policy);
}

function applyPolicy(ctx: HttpContext, policy: ResponseCachePolicy): void {
  const response = ctx.response;
  response.setHeader('cache-control', cacheControlOf(policy));
  if (policy.scope === 'private') {
    response.appendVary('Authorization');
    response.appendVary('Cookie');
  }
  let etag = response.headers.get('etag') as string | undefined;
  if (etag === undefined) {
    const body = bufferedBody(response);
    if (body === undefined) return;
    etag = strongEtag(body);
    response.setHeader('etag', etag);
  }
  if (etagMatches(ctx.headers['if-none-match'], etag)) answerNotModified(ctx);
}

/** Turns the answer into a 304: no body, and none of the headers that describe one. */
export function answerNotModified(ctx: HttpContext): void {
  const response = ctx.response;
  const body = response.body;
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) body.destroy();
  response.status = 304;
  response.body = null;
  for (const name of ['content-type', 'content-length', 'content-range', 'accept-ranges'])
    response.headers.delete(name);
}
