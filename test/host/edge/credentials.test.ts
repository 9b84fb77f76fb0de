import { describe, expect, it } from 'vitest';
import { acceptsQueryToken, bearerToken, presentedCredentials } from '../../../src/host/edge/credentials.js';

const COOKIE = { cookieName: 'hub_session' };

describe('bearerToken', () => {
  it('extracts the token of a Bearer header, whatever the scheme case', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer abc.def.ghi')).toBe('abc.def.ghi');
  });
  it.each([
    undefined,
    '',
    'Basic dXNlcjpwYXNz',
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'Bearer a,b',
    'Bearer\ta',
    ['Bearer a', 'Bearer b'],
  ])('gives null for %j', (header) => {
    expect(bearerToken(header as string)).toBeNull();
  });
  it('refuses tokens longer than 8 KB before matching', () => {
    expect(bearerToken(`Bearer ${'a'.repeat(8193)}`)).toBeNull();
  });
});

describe('presentedCredentials: one credential, chosen the same way at every edge', () => {
  it('takes the Authorization header alone when present; others are kept for the tenant check', () => {
    const p = presentedCredentials({ authorization: 'Bearer h', cookie: 'hub_session=c' }, 'access_token=q', {
      queryToken: true,
      ...COOKIE,
    });
    expect(p.chosen).toEqual({ kind: 'bearer', token: 'h', from: 'header' });
    expect(p.others).toEqual([
      { kind: 'bearer', token: 'q', from: 'query' },
      { kind: 'cookie', header: 'hub_session=c' },
    ]);
  });

  it('a malformed Authorization header is malformed: no fall-back to the query token or the cookie', () => {
    for (const authorization of ['Bearer a b', 'Basic dXNlcjpwYXNz', '', 'Bearer']) {
      const p = presentedCredentials({ authorization, cookie: 'hub_session=c' }, 'access_token=q', {
        queryToken: true,
        ...COOKIE,
      });
      expect(p, authorization).toEqual({ chosen: null, malformed: true, others: [] });
    }
  });

  it('the query token counts only where the caller accepts it (handshakes)', () => {
    expect(presentedCredentials({}, 'access_token=q', { queryToken: false }).chosen).toBeNull();
    expect(presentedCredentials({}, 'access_token=q', { queryToken: true }).chosen).toEqual({
      kind: 'bearer',
      token: 'q',
      from: 'query',
    });
  });

  it('a repeated, empty or ill-formed query token is malformed', () => {
    for (const search of ['access_token=a&access_token=b', 'access_token=', 'access_token=a%20b']) {
      expect(presentedCredentials({}, search, { queryToken: true }).malformed, search).toBe(true);
    }
  });

  it('the session cookie only by its exact name, and only when the caller has a cookie scheme', () => {
    expect(
      presentedCredentials({ cookie: 'theme=dark; hub_session=x' }, '', { queryToken: false, ...COOKIE }).chosen,
    ).toEqual({ kind: 'cookie', header: 'theme=dark; hub_session=x' });
    expect(
      presentedCredentials({ cookie: 'not_hub_session=x' }, '', { queryToken: false, ...COOKIE }).chosen,
    ).toBeNull();
    expect(presentedCredentials({ cookie: 'hub_session=x' }, '', { queryToken: false }).chosen).toBeNull();
  });
});

describe('acceptsQueryToken', () => {
  it('is true for WebSocket upgrades, EventSource requests and handshake paths only', () => {
    const req = (headers: Record<string, string>, path = '/v1/devices', method = 'GET') =>
      acceptsQueryToken({ method, headers, path }, ['/socket.io/']);
    expect(req({ connection: 'Upgrade', upgrade: 'websocket' })).toBe(true);
    expect(req({ connection: 'keep-alive, Upgrade', upgrade: 'websocket' })).toBe(true);
    expect(req({ upgrade: 'websocket' })).toBe(false);
    expect(req({ accept: 'text/event-stream' })).toBe(true);
    expect(req({ accept: 'text/event-stream' }, '/v1/devices', 'POST')).toBe(false);
    expect(req({}, '/socket.io/')).toBe(true);
    expect(req({})).toBe(false);
  });
});
