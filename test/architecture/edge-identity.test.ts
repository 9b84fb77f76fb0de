import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tsFilesUnder } from './imports.js';

// Issue 25 item 6: one credential parser and one origin / client-address resolver, in
// src/host/edge/. Every edge (hub HTTP, upgrades, socket.io, management, gateway, functions/)
// calls them; a second copy is how the edges came to disagree.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EDGE = 'src/host/edge/';

/** What reading identity off a raw request looks like, and the few files allowed to, with why. */
const RULES: { what: string; pattern: RegExp; allowed: Record<string, string> }[] = [
  {
    what: 'parses an Authorization header',
    pattern: /\/[^/\n]*[Bb]earer[^/\n]*\/[dgimsuy]*[.;,)]|(?:startsWith|split|slice|indexOf)\(\s*['"`][Bb]earer/,
    allowed: {},
  },
  {
    what: 'reads the Host header',
    pattern: /headers\s*(?:\.\s*host\b|\[\s*['"]host['"]\s*\])/,
    allowed: { 'src/host/pipeline/routing.ts': 'route host constraints match the validated Host' },
  },
  {
    what: 'reads forwarding headers',
    pattern: /headers\s*\[\s*['"](?:x-forwarded-[a-z]+|forwarded|x-real-ip)['"]\s*\]/,
    allowed: {
      'src/features/gateway/forwarded-headers.ts':
        "builds the upstream chain from a trusted proxy's, after the edge decided",
    },
  },
  {
    what: 'reads the peer address',
    pattern: /\bremoteAddress\b/,
    allowed: { 'src/adapters/mqtt/embedded-broker.ts': 'MQTT over raw TCP: per-address connection caps, no HTTP' },
  },
  {
    what: 'reads a query token',
    pattern: /(?:get|getAll|has)\(\s*['"]access_token['"]|\.access_token\b|\[\s*['"]access_token['"]\s*\]/,
    allowed: {},
  },
];

/** The rules a source text breaks, as `what` strings. */
export function violations(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
  return RULES.filter((rule) => !(file in rule.allowed) && rule.pattern.test(code)).map((rule) => rule.what);
}

describe('one edge identity', () => {
  it('no file outside src/host/edge reads credentials, Host, forwarding headers or the peer address itself', () => {
    const files = [...tsFilesUnder(join(root, 'src')), ...tsFilesUnder(join(root, 'functions/src'))]
      .map((f) => relative(root, f))
      .filter((f) => !f.startsWith(EDGE));
    const found = files.flatMap((file) =>
      violations(file, readFileSync(join(root, file), 'utf8')).map((what) => `${file} ${what}`),
    );
    expect(found).toEqual([]);
  });

  it('the check finds a planted second parser or resolver', () => {
    expect(violations('src/x.ts', 'const t = /^Bearer (\\S+)$/i.exec(h);')).toEqual(['parses an Authorization header']);
    expect(violations('src/x.ts', "if (auth.startsWith('Bearer ')) {}")).toEqual(['parses an Authorization header']);
    expect(violations('src/x.ts', 'const base = `http://${req.headers.host}`;')).toEqual(['reads the Host header']);
    expect(violations('src/x.ts', "const ip = req.headers['x-forwarded-for'];")).toEqual(['reads forwarding headers']);
    expect(violations('src/x.ts', 'const ip = req.socket.remoteAddress;')).toEqual(['reads the peer address']);
    expect(violations('src/x.ts', "url.searchParams.get('access_token')")).toEqual(['reads a query token']);
    expect(violations('src/x.ts', '// mentions req.headers.host in a comment only')).toEqual([]);
  });
});
