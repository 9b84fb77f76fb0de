import { SignJWT } from 'jose';
import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../../../../src/wire/webpubsub/access-token.js';
import type { RunningApp } from '../../../support/app-harness.js';

/** JSON text nested `depth` levels deep: `{"a":{"a":…1…}}`. */
export function deepJson(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** A Web PubSub client access URL for the running app, signed with its `Hub:AccessKey`. */
export async function clientUrl(
  running: RunningApp,
  claims: { userId?: string; tenantId?: string; roles?: string[] } = {},
): Promise<string> {
  const token = await mintClientAccessToken({
    accessKey: running.app.config.hub.accessKey,
    audience: clientAudience(running.url, running.app.config.hub.name),
    ...claims,
  });
  return clientAccessUrl(running.url, running.app.config.hub.name, token);
}

/**
 * A management API request as the official service client sends it (bearer JWT over the URL,
 * signed with the access key), with a body the client itself could not serialize (too deep).
 */
export async function management(
  running: RunningApp,
  method: string,
  path: string,
  body?: { contentType: string; text: string },
): Promise<Response> {
  const url = `${running.url}/api/hubs/${running.app.config.hub.name}${path}`;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(url)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(running.app.config.hub.accessKey));
  return fetch(`${url}?api-version=2024-12-01`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': body.contentType } : {}) },
    ...(body ? { body: body.text } : {}),
  });
}
