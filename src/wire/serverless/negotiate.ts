import type { JwtVerifier } from '../../host/security/jwt-bearer.js';
import type { ClientUrlIssuer } from './client-url-issuer.js';
import { authenticateUser } from './authenticate-user.js';
import { jsonResponse, problemResponse, type FunctionRequest, type FunctionResponse } from './function-http.js';

export interface NegotiateDeps {
  readonly users: JwtVerifier;
  readonly clientUrl: ClientUrlIssuer;
}

/**
 * `POST /api/negotiate` (contract "Serverless functions"): the signed-in user gets a client access
 * URL for itself → 200 `{ url }`, valid no longer than the user's token; no or invalid token → 401.
 */
export async function handleNegotiate(req: FunctionRequest, deps: NegotiateDeps): Promise<FunctionResponse> {
  const auth = await authenticateUser(req, deps.users);
  if (!auth.ok) return auth.response;
  const { sub, tenantId, expiresAt } = auth.principal;
  const url = await deps.clientUrl({ userId: sub, tenantId, ...(expiresAt !== undefined ? { expiresAt } : {}) });
  // Accepted within the clock skew but already past its exp: nothing left to hand out.
  if (url === undefined) {
    return problemResponse(req, 'AUTH_INVALID_TOKEN', 'The access token has expired.', {
      'www-authenticate': 'Bearer error="invalid_token"',
    });
  }
  return jsonResponse(200, { url });
}
