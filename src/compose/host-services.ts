import { ServiceCollection } from '../host/container/service-collection.js';
import { HTTP_CONTEXT } from '../host/pipeline/http-context.js';
import { CONNECTION_CONTEXT } from '../realtime/connection-context.js';
import { currentTenant } from '../host/security/tenant-context.js';
import { TENANT_CONTEXT, TenantContext } from '../host/security/tenant-scope.js';

/**
 * The container's registrations every host has: the request each request scope carries, the
 * client each connection scope carries, and the tenant context of each scope, taken from the
 * tenant authentication (or the worker) set for its unit of work; a connection scope supplies its
 * own, from the credential the connection was admitted with.
 */
export function hostServices(): ServiceCollection {
  return new ServiceCollection()
    .perScope(HTTP_CONTEXT)
    .perScope(CONNECTION_CONTEXT)
    .scoped(TENANT_CONTEXT, [], () => new TenantContext(currentTenant()));
}
