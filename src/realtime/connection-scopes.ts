import { scopeValue, type ScopeFactory, type ServiceScope } from '../host/container/service-scope.js';
import { TENANT_CONTEXT, TenantContext } from '../host/security/tenant-scope.js';
import { CONNECTION_CONTEXT, ConnectionContext } from './connection-context.js';
import type { HubConnection } from './hub-connection.js';

/**
 * The service scopes of a transport's live connections: one per connection, opened once the hub
 * took the connection and disposed when it ends (a disconnect, an error, a token expiry, the
 * server stopping), in reverse creation order like every scope. The scope carries who connected
 * (`ConnectionContext`) and the connection's tenant context, so hub methods resolve identity from
 * it instead of reaching into the socket. Readings never pass through here.
 */
export class ConnectionScopes {
  readonly #factory: ScopeFactory;
  readonly #onDisposeError: (err: unknown, connectionId: string) => void;
  readonly #open = new Map<string, ServiceScope>();

  constructor(factory: ScopeFactory, onDisposeError: (err: unknown, connectionId: string) => void) {
    this.#factory = factory;
    this.#onDisposeError = onDisposeError;
  }

  /** Scopes of connections not ended yet. */
  get size(): number {
    return this.#open.size;
  }

  open(connection: Pick<HubConnection, 'id' | 'transport' | 'userId' | 'tenantId'>): ServiceScope {
    const { id, transport, userId, tenantId } = connection;
    // The tenant comes with the connection's credential, not from whatever request context the
    // handshake ran in: the scope supplies its own tenant context.
    const scope = this.#factory.createScope([
      scopeValue(CONNECTION_CONTEXT, new ConnectionContext(id, transport, userId, tenantId)),
      scopeValue(TENANT_CONTEXT, new TenantContext(tenantId)),
    ]);
    this.#open.set(id, scope);
    return scope;
  }

  /** The scope of a live connection; undefined once it ended. */
  get(connectionId: string): ServiceScope | undefined {
    return this.#open.get(connectionId);
  }

  /** Disposes a connection's scope (idempotent); a disposer that fails is reported, never thrown. */
  close(connectionId: string): Promise<void> {
    const scope = this.#open.get(connectionId);
    if (scope === undefined) return Promise.resolve();
    this.#open.delete(connectionId);
    return scope.dispose().catch((err: unknown) => this.#onDisposeError(err, connectionId));
  }

  /** Server stop: every scope still open, so none outlives the container's singletons. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#open.keys()].map((id) => this.close(id)));
  }
}
