import { describe, expect, it } from 'vitest';
import { createCorsPolicy, normalizeOrigin } from '../../../src/host/security/cors-policy.js';

const APP = 'https://app.example.com';
const policy = createCorsPolicy({ allowedOrigins: [APP, 'http://localhost:5173/'] });

describe('CORS preflight', () => {
  it('allows a listed origin with the headers of a 204 answer', () => {
    expect(policy.preflight(APP, 'PUT', 'authorization, content-type')).toEqual({
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'Access-Control-Allow-Headers': 'authorization, content-type, traceparent, tracestate',
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    });
  });

  it('matches origins after normalising case, default port and trailing slash', () => {
    expect(policy.preflight('HTTPS://App.Example.com:443', 'GET', undefined)?.['Access-Control-Allow-Origin']).toBe(
      APP,
    );
    expect(policy.preflight('http://localhost:5173', 'GET', undefined)?.['Access-Control-Allow-Origin']).toBe(
      'http://localhost:5173',
    );
  });

  it.each([
    ['an unlisted origin', 'https://evil.example.com', 'PUT', 'authorization'],
    ['a look-alike subdomain', 'https://app.example.com.evil.io', 'PUT', undefined],
    ['another scheme', 'http://app.example.com', 'PUT', undefined],
    ['another port', 'https://app.example.com:8443', 'PUT', undefined],
    ['the opaque origin', 'null', 'PUT', undefined],
    ['no origin', undefined, 'PUT', undefined],
    ['a method not allowed', APP, 'TRACE', undefined],
    ['no requested method', APP, undefined, undefined],
    ['a header not allowed', APP, 'PUT', 'authorization, x-admin-override'],
  ])('gives no CORS headers for %s', (_name, origin, method, headers) => {
    expect(policy.preflight(origin, method, headers)).toBeNull();
  });

  it('uses configured methods, headers, max age and credentials', () => {
    const custom = createCorsPolicy({
      allowedOrigins: [APP],
      allowedMethods: ['get', 'put'],
      allowedHeaders: ['Authorization'],
      maxAgeSeconds: 60,
      allowCredentials: true,
    });
    expect(custom.preflight(APP, 'PUT', 'Authorization')).toEqual({
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Allow-Methods': 'GET, PUT',
      'Access-Control-Allow-Headers': 'authorization',
      'Access-Control-Max-Age': '60',
      Vary: 'Origin',
    });
    expect(custom.preflight(APP, 'DELETE', undefined)).toBeNull();
  });
});

describe('CORS actual responses', () => {
  it('carries Allow-Origin for a listed origin', () => {
    expect(policy.actual(APP)).toEqual({ 'Access-Control-Allow-Origin': APP, Vary: 'Origin' });
  });

  it('carries only Vary for an unlisted or missing origin', () => {
    expect(policy.actual('https://evil.example.com')).toEqual({ Vary: 'Origin' });
    expect(policy.actual(undefined)).toEqual({ Vary: 'Origin' });
  });
});

describe('wildcard', () => {
  it('allows any origin with "*" when credentials are off', () => {
    const any = createCorsPolicy({ allowedOrigins: ['*'] });
    expect(any.actual('https://anything.test')['Access-Control-Allow-Origin']).toBe('*');
    expect(any.preflight('https://anything.test', 'POST', 'content-type')?.['Access-Control-Allow-Origin']).toBe('*');
  });

  it('refuses "*" together with credentials', () => {
    expect(() => createCorsPolicy({ allowedOrigins: ['*'], allowCredentials: true })).toThrow(/credentials/);
  });
});

describe('configuration', () => {
  it.each([
    'app.example.com',
    'https://app.example.com/path',
    'ftp://files.example.com',
    'https://user@app.example.com',
  ])('refuses %j as an allowed origin', (origin) =>
    expect(() => createCorsPolicy({ allowedOrigins: [origin] })).toThrow(/not an origin/),
  );

  it('normalises an origin to scheme://host[:port]', () => {
    expect(normalizeOrigin('HTTP://LOCALHOST:80/')).toBe('http://localhost');
    expect(normalizeOrigin('http://localhost:8080')).toBe('http://localhost:8080');
  });

  it('exposes the configured response headers to allowed origins only', () => {
    const policy = createCorsPolicy({ allowedOrigins: [APP], exposedHeaders: ['etag', 'sunset'] });
    expect(policy.actual(APP)['Access-Control-Expose-Headers']).toBe('etag, sunset');
    expect(policy.actual('https://evil.example')).toEqual({ Vary: 'Origin' });
  });
});
