import { join } from 'node:path';
import { Errors } from '../../host/errors.js';
import { packageRoot } from '../../host/package-root.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import { Results, type Result } from '../../host/pipeline/results.js';
import { chooseEncoding, loadStaticAssets, type StaticAsset } from '../../host/http/static-assets.js';

/** Where `vite build` puts the dashboard: dist/web-client under the package root. */
export const DASHBOARD_DIR = join(packageRoot(), 'dist', 'web-client');

/**
 * The page's Content-Security-Policy: scripts and styles only from the hub's own built files (the
 * built index.html has no inline script, and a test keeps it so), connections back to the hub only
 * (socket.io and the Web PubSub endpoint; `'self'` covers ws(s) to the same host), never framed.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The dashboard at `/`: index.html revalidated on every load, hashed assets cached for a year.
 * Anonymous: the page signs in itself (cookie or dev token) before it calls the API. The build's
 * source maps (`*.map`) are served only with `sourceMaps` (Development); otherwise they are 404.
 */
export function mapDashboardEndpoints(
  routes: EndpointGroup,
  options: { sourceMaps: boolean; dir?: string },
): { files: number } {
  const assets = loadStaticAssets(options.dir ?? DASHBOARD_DIR);
  if (!options.sourceMaps) for (const path of [...assets.keys()]) if (path.endsWith('.map')) assets.delete(path);
  const metadata = { allowAnonymous: true, rateLimit: false };
  routes.get('/', ({ http }) => serve(http, assets.get('/index.html'), 'no-cache'), { metadata });
  routes.get(
    '/assets/{*path}',
    ({ http }) => serve(http, assets.get(`/assets/${http.routeValues.path}`), 'public, max-age=31536000, immutable'),
    { metadata },
  );
  return { files: assets.size };
}

function serve(ctx: HttpContext, asset: StaticAsset | undefined, cacheControl: string): Result {
  if (!asset) {
    return Results.problem(
      Errors.HTTP_NOT_FOUND,
      ctx.path === '/' ? 'The dashboard is not built (npm run build).' : 'No such file.',
    );
  }
  const headers: Record<string, string> = { 'cache-control': cacheControl, etag: asset.etag, vary: 'Accept-Encoding' };
  if (asset.type.startsWith('text/html')) headers['content-security-policy'] = DASHBOARD_CSP;
  if (ctx.headers['if-none-match'] === asset.etag) return Results.status(304, headers);
  const { body, encoding } = chooseEncoding(asset, ctx.headers['accept-encoding']);
  return Results.bytes(body, {
    ...headers,
    'content-type': asset.type,
    ...(encoding ? { 'content-encoding': encoding } : {}),
  });
}
