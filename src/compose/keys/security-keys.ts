import {
  isDevelopment as dev,
  notDevelopment as notDev,
  type KeyDefinition,
} from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../host/security/dev-defaults.js';

/** Security's configuration keys: user-token (JWT) validation and the CORS origins. Units are in the names or noted. */
export const SECURITY_KEYS: readonly KeyDefinition[] = [
  {
    key: 'Auth:Jwt:Secret',
    doc: 'user tokens (HS256); `Auth:Jwt:JwksUri` instead for asymmetric issuers',
    defaultDoc: 'dev values in Development; required otherwise',
    parse: p.str({ minLength: 32 }),
    secret: true,
    dependent: true,
    default: (ctx) => (dev(ctx) ? DEV_JWT_SECRET : undefined),
    required: (ctx) => notDev(ctx) && ctx.get('Auth:Jwt:JwksUri') === undefined,
  },
  {
    key: 'Auth:Jwt:Issuer',
    doc: 'the `iss` user tokens must carry',
    defaultDoc: 'the development issuer in Development; required otherwise',
    parse: p.str(),
    default: (ctx) => (dev(ctx) ? DEV_JWT_ISSUER : undefined),
    required: notDev,
  },
  {
    key: 'Auth:Jwt:Audience',
    doc: 'the `aud` user tokens must carry',
    defaultDoc: 'the development audience in Development; required otherwise',
    parse: p.str(),
    default: (ctx) => (dev(ctx) ? DEV_JWT_AUDIENCE : undefined),
    required: notDev,
  },
  {
    key: 'Auth:Jwt:JwksUri',
    doc: 'a JWKS endpoint (https, or http on loopback) for asymmetric issuers (RS256, ES256), instead of `Auth:Jwt:Secret`',
    parse: p.url(['https', 'http']),
  },
  // seconds of clock skew tolerated on token expiry
  {
    key: 'Auth:Jwt:ClockSkewSeconds',
    doc: 'tolerated clock skew on token expiry',
    parse: p.int(0, 600),
    default: () => 60,
  },
  // Development: the dashboard's own origin when it runs from Vite's dev server (same-origin needs none).
  {
    key: 'Cors:AllowedOrigins',
    doc: 'comma separated origins of the default CORS policy (endpoints that name no policy)',
    defaultDoc: "none (Development: the dashboard's own origin)",
    parse: p.origins,
    default: (ctx) => (dev(ctx) ? ['http://localhost:5173', 'http://127.0.0.1:5173'] : []),
  },
];

/** Secrets that are public knowledge (the development defaults): refused as any signing secret outside Development. */
export const WELL_KNOWN_SECRETS: readonly string[] = [DEV_JWT_SECRET];
