import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import { createJwtVerifier, type JwtVerifier } from '../../src/host/security/jwt-bearer.js';
import type { FunctionSettings } from './settings/function-settings.js';
import { createClientUrlIssuer, type ClientUrlIssuer } from '../../src/wire/serverless/client-url-issuer.js';
import { createServiceClient } from './web-pubsub/service-client.js';

/** Everything negotiate and subscribe need, built once from the app settings. */
export interface FunctionDeps {
  readonly users: JwtVerifier;
  readonly service: WebPubSubServiceClient;
  readonly clientUrl: ClientUrlIssuer;
}

export function createFunctionDeps(settings: FunctionSettings): FunctionDeps {
  const { endpoint, accessKey } = settings.connection;
  return {
    users: createJwtVerifier(settings.jwt),
    service: createServiceClient(settings.connectionString, settings.hub),
    clientUrl: createClientUrlIssuer({ endpoint, accessKey, hub: settings.hub }),
  };
}
