import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateServer, type PrivateServer } from './private-server.js';

const SITE = fileURLToPath(new URL('../../deploy/nginx/telemetry-hub.conf', import.meta.url));

/**
 * Debian's nginx on an ephemeral port with the project's site configuration (deploy/nginx/), its
 * upstream pointed at `upstreams` (host:port). Everything nginx writes (pid, logs, temp files) goes
 * to its own temp directory. One process (no master/worker split), so stopping it by PID stops nginx.
 */
export async function privateNginx(
  upstreams: readonly string[],
): Promise<PrivateServer & { dir: string; errorLog(): string; dispose(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-test-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const server = await privateServer('nginx', (port) => {
    const site = readFileSync(SITE, 'utf8')
      .replace(/listen 80;/, `listen 127.0.0.1:${port};`)
      .replace(
        /^\s*server 127\.0\.0\.1:8080[^;]*;$/m,
        upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=5s;`).join('\n'),
      );
    writeFileSync(join(dir, 'telemetry-hub.conf'), site);
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log warn;`,
        'events { worker_connections 512; }',
        'http {',
        '  access_log off;',
        `  client_body_temp_path ${dir}/body;`,
        `  proxy_temp_path ${dir}/proxy;`,
        `  fastcgi_temp_path ${dir}/fastcgi;`,
        `  uwsgi_temp_path ${dir}/uwsgi;`,
        `  scgi_temp_path ${dir}/scgi;`,
        `  include ${dir}/telemetry-hub.conf;`,
        '}',
      ].join('\n'),
    );
    return ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  });
  return {
    ...server,
    port: server.port,
    start: () => server.start(),
    stop: () => server.stop(),
    dir,
    errorLog: () => {
      try {
        return readFileSync(join(dir, 'error.log'), 'utf8');
      } catch {
        return '';
      }
    },
    dispose: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
