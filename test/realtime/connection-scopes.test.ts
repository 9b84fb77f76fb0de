import { describe, expect, it } from 'vitest';
import { hostServices } from '../../src/compose/host-services.js';
import { ContainerValidationError } from '../../src/host/container/container-validation-error.js';
import { serviceKey } from '../../src/host/container/service-key.js';
import { TENANT_CONTEXT } from '../../src/host/security/tenant-scope.js';
import { runWithTenant } from '../../src/host/security/tenant-context.js';
import { CONNECTION_CONTEXT } from '../../src/realtime/connection-context.js';
import { ConnectionScopes } from '../../src/realtime/connection-scopes.js';
import { connectionScopeProbe } from '../support/connection-scope-probe.js';

const alice = { id: 'c1', transport: 'socketio', userId: 'alice', tenantId: 'acme' };
const bob = { id: 'c2', transport: 'webpubsub', userId: 'bob', tenantId: 'globex' };

describe('connection scopes', () => {
  it('gives each connection its identity and its own tenant context, whatever request context it opened in', () => {
    const scopes = new ConnectionScopes(hostServices().build(), () => {});
    // The handshake may run inside another tenant's context: the connection keeps its own.
    const scope = runWithTenant('other', () => scopes.open(alice));

    expect(scope.resolve(CONNECTION_CONTEXT)).toMatchObject({
      connectionId: 'c1',
      transport: 'socketio',
      userId: 'alice',
      tenantId: 'acme',
    });
    expect(scope.resolve(TENANT_CONTEXT).tenantId).toBe('acme');
    expect(scopes.open(bob).resolve(TENANT_CONTEXT).tenantId).toBe('globex');
  });

  it('disposes a closed connection’s services in reverse creation order, once', async () => {
    const { scopes: factory, events } = connectionScopeProbe();
    const scopes = new ConnectionScopes(factory, () => {});
    scopes.open(alice);
    scopes.open(bob);

    await Promise.all([scopes.close('c1'), scopes.close('c1')]);

    expect(events).toEqual([
      'create log alice',
      'create cache alice',
      'create log bob',
      'create cache bob',
      'dispose cache alice',
      'dispose log alice',
    ]);
    expect(scopes.get('c1')).toBeUndefined();
    expect(scopes.size).toBe(1);
  });

  it('disposes every open scope at closeAll, and reports a failing disposer instead of throwing', async () => {
    const failures: string[] = [];
    const FAILING = serviceKey<object>('failing');
    const provider = hostServices()
      .scoped(FAILING, [], () => ({}), {
        dispose: () => {
          throw new Error('boom');
        },
      })
      .build();
    const scopes = new ConnectionScopes(provider, (_err, id) => failures.push(id));
    scopes.open(alice).resolve(FAILING);
    scopes.open(bob);

    await scopes.closeAll();

    expect(failures).toEqual(['c1']);
    expect(scopes.size).toBe(0);
  });

  it('refuses at build a singleton that would keep one connection’s identity', () => {
    const KEEPER = serviceKey<object>('connectionKeeper');
    const services = hostServices().singleton(KEEPER, [CONNECTION_CONTEXT], (who) => ({ who }));

    expect(() => services.build()).toThrow(ContainerValidationError);
    expect(() => services.build()).toThrow(/singleton 'connectionKeeper' depends on scoped 'connectionContext'/);
  });
});
