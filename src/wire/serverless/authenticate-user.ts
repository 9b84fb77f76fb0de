import { bearerToken, isBearerScheme } from '../../host/edge/credentials.js';
import type { JwtVerifier } from '../../host/security/jwt-bearer.js';
import type { Principal } from '../../host/security/principal.js';
import { problemResponse, type FunctionRequest, type FunctionResponse } from './function-http.js';

export type UserAuthentication = { ok: true; principal: Principal } | { ok: false; response: FunctionResponse };

/**
 * The user's bearer token (contract "User tokens"), checked by the function itself: on Azure no
 * middleware runs before it. Missing → 401 `Bearer`; refused → 401 `Bearer error="invalid_token"`
 * (RFC 6750), with the same wording as the hub's own challenge. The reason stays out of the answer.
 */
export async function authenticateUser(req: FunctionRequest, users: JwtVerifier): Promise<UserAuthentication> {
  const header = req.authorization;
  if (!isBearerScheme(header)) {
    return fail(
      problemResponse(req, 'AUTH_UNAUTHENTICATED', 'This endpoint requires an access token.', {
        'www-authenticate': 'Bearer',
      }),
    );
  }
  const token = bearerToken(header);
  const verified = token === null ? undefined : await users.verify(token);
  if (verified === undefined || !verified.ok) {
    return fail(
      problemResponse(req, 'AUTH_INVALID_TOKEN', 'The access token is not valid for this service.', {
        'www-authenticate': 'Bearer error="invalid_token"',
      }),
    );
  }
  return { ok: true, principal: verified.principal };
}

function fail(response: FunctionResponse): UserAuthentication {
  return { ok: false, response };
}
