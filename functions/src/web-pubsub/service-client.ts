import { WebPubSubServiceClient } from '@azure/web-pubsub';
import { parseConnectionString } from '../../../src/wire/webpubsub/connection-string.js';
import { tracePolicy } from './trace-policy.js';

/**
 * The official data-plane client for `connectionString` (`Endpoint=…;AccessKey=…;Version=1.0;`).
 * Plain http is allowed only when the endpoint says http (a local hub): the SDK refuses to send
 * its key-signed token over http unless told to. Each call carries the invocation's trace (tracePolicy).
 */
export function createServiceClient(connectionString: string, hub: string): WebPubSubServiceClient {
  const { endpoint } = parseConnectionString(connectionString);
  return new WebPubSubServiceClient(connectionString, hub, {
    allowInsecureConnection: endpoint.startsWith('http:'),
    additionalPolicies: [{ policy: tracePolicy, position: 'perCall' }],
  });
}
