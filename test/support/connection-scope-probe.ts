import { hostServices } from '../../src/compose/host-services.js';
import { serviceKey } from '../../src/host/container/service-key.js';
import type { ScopeFactory, ScopeValue } from '../../src/host/container/service-scope.js';
import { TENANT_CONTEXT, TenantContext } from '../../src/host/security/tenant-scope.js';
import { CONNECTION_CONTEXT, type ConnectionContext } from '../../src/realtime/connection-context.js';

const SESSION_LOG = serviceKey<{ who: ConnectionContext }>('sessionLog');
const SESSION_CACHE = serviceKey<{ who: ConnectionContext }>('sessionCache');

/**
 * The host's registrations plus two scoped services a connection scope resolves when it opens (the
 * second built from the first), each noting its creation and disposal in `events` with the user
 * who connected. `tenantOverride` makes every scope supply that tenant instead of the connection's:
 * what a hub method then does shows that it asked its scope, not the socket.
 */
export function connectionScopeProbe(options: { tenantOverride?: string } = {}) {
  const events: string[] = [];
  const identities: ConnectionContext[] = [];
  const provider = hostServices()
    .scoped(SESSION_LOG, [CONNECTION_CONTEXT], (who) => (events.push(`create log ${who.userId}`), { who }), {
      dispose: ({ who }) => void events.push(`dispose log ${who.userId}`),
    })
    .scoped(
      SESSION_CACHE,
      [CONNECTION_CONTEXT, SESSION_LOG],
      (who) => (events.push(`create cache ${who.userId}`), { who }),
      {
        dispose: ({ who }) => void events.push(`dispose cache ${who.userId}`),
      },
    )
    .build();
  const scopes: ScopeFactory = {
    createScope(values: readonly ScopeValue[] = []) {
      const supplied = options.tenantOverride
        ? values.map(
            ([key, value]): ScopeValue =>
              key === TENANT_CONTEXT ? [key, new TenantContext(options.tenantOverride)] : [key, value],
          )
        : values;
      const scope = provider.createScope(supplied);
      identities.push(scope.resolve(CONNECTION_CONTEXT));
      scope.resolve(SESSION_CACHE);
      return scope;
    },
  };
  return { scopes, events, identities, provider };
}
