import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.map', '.json', '.svg', '.txt']);

export interface StaticAsset {
  type: string;
  etag: string;
  identity: Buffer;
  compressible: boolean;
  /** Filled on first request: start-up pays nothing for encodings nobody asks for. */
  encoded: { br?: Buffer; gzip?: Buffer };
}

/**
 * The built dashboard, read and compressed once at start: serving a file is a map lookup, and
 * a path outside the build cannot be asked for because only files found here exist.
 */
export function loadStaticAssets(dir: string): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  if (!existsSync(dir)) return assets;
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const full = join(current, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const ext = extname(name).toLowerCase();
      const identity = readFileSync(full);
      assets.set('/' + relative(dir, full).split(sep).join('/'), {
        type: TYPES[ext] ?? 'application/octet-stream',
        etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
        identity,
        compressible: COMPRESSIBLE.has(ext) && identity.length > 512,
        encoded: {},
      });
    }
  };
  walk(dir);
  return assets;
}

/** The best encoding the client accepts that we have (br, then gzip, then none). */
export function chooseEncoding(
  asset: StaticAsset,
  acceptEncoding: string | undefined,
): { body: Buffer; encoding?: string } {
  if (!asset.compressible) return { body: asset.identity };
  const accepted = (acceptEncoding ?? '').toLowerCase();
  if (/\bbr\b/.test(accepted)) {
    asset.encoded.br ??= brotliCompressSync(asset.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    return { body: asset.encoded.br, encoding: 'br' };
  }
  if (/\bgzip\b/.test(accepted)) {
    asset.encoded.gzip ??= gzipSync(asset.identity, { level: 9 });
    return { body: asset.encoded.gzip, encoding: 'gzip' };
  }
  return { body: asset.identity };
}
