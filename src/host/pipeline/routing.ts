import { Errors, HubError } from '../errors.js';
import type { Endpoint } from './endpoint.js';
import { EndpointGroup } from './endpoint-builder.js';
import type { HttpContext } from './http-context.js';
import { isPreflight, requestedMethod, setPreflightTarget } from './preflight.js';
import { Results } from './results.js';
import type { Router } from './router.js';

/** Built-in endpoints selected when the path fits but nothing accepts the method or the body. */
function builtIn(displayName: string, result: () => ReturnType<typeof Results.problem>): Endpoint {
  const group = new EndpointGroup([]);
  return group.map(null, '/', () => result(), { name: displayName, metadata: { builtIn: true } });
}

const unsupportedMediaType = builtIn('415 Unsupported Media Type', () =>
  Results.problem(Errors.HTTP_UNSUPPORTED_MEDIA_TYPE, 'The endpoint does not accept this request content type.'),
);

export function mediaType(ctx: HttpContext): string | undefined {
  const hasBody = ctx.body !== undefined && ctx.body.length > 0;
  const header = ctx.headers['content-type'];
  if (!hasBody) return undefined;
  return (header ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase();
}

/** Selects the endpoint for ctx.path and records it on the context (the routing position). */
export function selectEndpoint(router: Router, ctx: HttpContext): void {
  const request = { method: ctx.method, path: ctx.path, host: ctx.headers.host, contentType: mediaType(ctx) };
  if (isPreflight(ctx)) {
    // CORS answers a preflight with the policy of the endpoint the actual request would reach.
    const target = router.select({ ...request, method: requestedMethod(ctx) });
    setPreflightTarget(ctx, target.kind === 'endpoint' ? target.endpoint : null);
  }
  const selection = router.select(request);
  switch (selection.kind) {
    case 'endpoint':
      ctx.endpoint = selection.endpoint;
      ctx.routeValues = selection.values;
      return;
    case 'none':
      ctx.endpoint = null;
      return;
    case 'method-not-allowed': {
      const allow = selection.allow.join(', ');
      ctx.endpoint = builtIn('405 Method Not Allowed', () =>
        Results.problem(Errors.HTTP_METHOD_NOT_ALLOWED, `Allowed methods: ${allow}.`, undefined, { allow }),
      );
      return;
    }
    case 'unsupported-media-type':
      ctx.endpoint = unsupportedMediaType;
      return;
    case 'ambiguous': {
      const names = selection.candidates.map((c) => c.displayName);
      ctx.log.error({ candidates: names, path: ctx.path }, 'ambiguous route match');
      throw new HubError('HTTP_AMBIGUOUS_ROUTE', `The request matched more than one endpoint: ${names.join(' | ')}.`);
    }
  }
}
