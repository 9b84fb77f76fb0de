import type { JwtVerifier } from '../../../src/security/jwt-bearer.js';
import type { ClientUrlIssuer } from '../web-pubsub/client-url-issuer.js';
import { authenticateUser } from './authenticate-user.js';
import { jsonResponse, type FunctionRequest, type FunctionResponse } from './function-http.js';

export interface NegotiateDeps {
  readonly users: JwtVerifier;
  readonly clientUrl: ClientUrlIssuer;
}

/**
 * `POST /api/negotiate` (contract "Serverless functions"): the signed-in user gets a client access
 * URL for itself → 200 `{ url }`; no or invalid token → 401.
 */
export async function handleNegotiate(req: FunctionRequest, deps: NegotiateDeps): Promise<FunctionResponse> {
  const auth = await authenticateUser(req, deps.users);
  if (!auth.ok) return auth.response;
  const { sub, tenantId } = auth.principal;
  return jsonResponse(200, { url: await deps.clientUrl({ userId: sub, tenantId }) });
}
