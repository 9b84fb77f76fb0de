import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_CACHE_METADATA, type ResponseCachePolicy } from '../../../src/features/cache/response-caching.js';
import { Results } from '../../../src/host/pipeline/results.js';
import { startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { privateServer, requireCommand, type PrivateServer } from '../../support/private-server.js';

/**
 * Debian's nginx with proxy_cache in front of the hub, as a shared cache (CDN, proxy) would sit:
 * it must serve fresh public answers without asking the hub, never store private ones, and
 * revalidate stale ones with the ETag (the hub answering 304).
 */
function nginxConfig(dir: string, port: number, upstream: string): string {
  return `
daemon off;
# One process as the invoking user: a root master would hand the cache to workers of another user.
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  proxy_cache_path ${dir}/cache levels=1 keys_zone=hub:1m max_size=16m inactive=10m use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_cache hub;
      proxy_cache_revalidate on;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }
}
`;
}

/** A public answer with no user data, shared-cacheable for 1 s: the kind of GET s-maxage is for. */
const PUBLIC_POLICY: ResponseCachePolicy = { scope: 'public', maxAgeSeconds: 0, sharedMaxAgeSeconds: 1 };

// Debian installs it in /usr/sbin, which is not on every user's PATH.
const NGINX = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';

if (requireCommand(NGINX, 'the shared-cache tests put Debian’s nginx in front of the hub')) {
  describe('HTTP caching behind nginx proxy_cache', () => {
    let hub: RunningApp;
    let nginx: PrivateServer;
    let dir: string;
    let version = 'v1';

    beforeAll(async () => {
      hub = await startApp([], (app) => {
        app.web.routes.get('/catalogue', () => Results.json({ version }), {
          metadata: { allowAnonymous: true, [RESPONSE_CACHE_METADATA]: PUBLIC_POLICY },
        });
      });
      dir = mkdtempSync(join(tmpdir(), 'hub-nginx-'));
      nginx = await privateServer(NGINX, (port) => {
        writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, port, hub.url));
        return ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
      });
      await nginx.start();
    });
    afterAll(async () => {
      await nginx?.stop();
      await hub?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Requests the hub logged for a route template. */
    const reachedHub = (route: string) => hub.logs.filter((l) => l.msg === 'request' && l.route === route).length;
    const viaNginx = (path: string, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${nginx.port}${path}`, { headers });

    it('serves a fresh public answer from nginx without reaching the hub', async () => {
      const first = await viaNginx('/catalogue');
      expect(first.status).toBe(200);
      expect(first.headers.get('x-cache-status')).toBe('MISS');
      expect(first.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=1');
      expect(first.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      expect(reachedHub('/catalogue')).toBe(1);
      version = 'v2';
      const second = await viaNginx('/catalogue');
      // A miss would have been v2 and a second request at the hub.
      expect(second.headers.get('x-cache-status')).toBe('HIT');
      expect(await second.json()).toEqual({ version: 'v1' });
      expect(reachedHub('/catalogue')).toBe(1);
    });

    it('revalidates a stale entry with its ETag: the hub answers 304 and nginx serves what it holds', async () => {
      version = 'v1';
      // Same body as stored, so the hub's ETag matches once s-maxage (1 s) has passed.
      const deadline = Date.now() + 10_000;
      let status: string | null = null;
      let before = reachedHub('/catalogue');
      while (Date.now() < deadline) {
        before = reachedHub('/catalogue');
        const res = await viaNginx('/catalogue');
        status = res.headers.get('x-cache-status');
        if (status === 'REVALIDATED') {
          expect(await res.json()).toEqual({ version: 'v1' });
          break;
        }
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe('REVALIDATED');
      expect(reachedHub('/catalogue')).toBe(before + 1);
      const answer = hub.logs.filter((l) => l.msg === 'request' && l.route === '/catalogue').at(-1);
      expect(answer?.status).toBe(304);
    });

    it('answers a client’s If-None-Match with 304 from the cache', async () => {
      const fresh = await viaNginx('/catalogue');
      const etag = fresh.headers.get('etag')!;
      await fresh.arrayBuffer();
      const conditional = await viaNginx('/catalogue', { 'if-none-match': etag });
      expect(conditional.status).toBe(304);
      expect((await conditional.arrayBuffer()).byteLength).toBe(0);
    });

    it('never stores a private answer: every request for the device list reaches the hub', async () => {
      const headers = { authorization: `Bearer ${await userToken('nginx-t')}` };
      const before = reachedHub('/v1/devices');
      for (let i = 0; i < 3; i++) {
        const res = await viaNginx('/v1/devices', headers);
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('private, no-cache');
        expect(res.headers.get('vary')).toMatch(/Authorization/);
        expect(res.headers.get('x-cache-status')).toBe('MISS');
        await res.arrayBuffer();
      }
      expect(reachedHub('/v1/devices')).toBe(before + 3);
    });

    it('never stores an error or a health answer', async () => {
      for (const path of ['/v1/devices', '/health/live']) {
        const before = hub.logs.filter((l) => l.msg === 'request').length;
        for (let i = 0; i < 2; i++) {
          const res = await viaNginx(path);
          expect(res.headers.get('cache-control')).toBe('no-store');
          expect(res.headers.get('x-cache-status')).toBe('MISS');
          await res.arrayBuffer();
        }
        expect(hub.logs.filter((l) => l.msg === 'request').length).toBe(before + 2);
      }
    });
  });
}
