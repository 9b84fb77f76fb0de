import type { GroupMembershipService } from '../../functions/src/handlers/subscribe.js';
import type { ManagementService } from '../management/management-service.js';

/**
 * The hub's management service in the shape the `subscribe` function calls (the subset of
 * `WebPubSubServiceClient` it uses), so the host runs the function's own handler without a
 * loopback HTTP call and a self-signed token. An unknown connection rejects with `statusCode: 404`,
 * as the service client does.
 */
export function inProcessMembership(management: ManagementService): GroupMembershipService {
  return {
    connectionExists: async (connectionId) => management.connectionExists(connectionId),
    group: (groupName) => ({
      addConnection: async (connectionId) => {
        if (!management.addConnectionToGroup(groupName, connectionId)) {
          throw Object.assign(new Error(`Connection '${connectionId}' does not exist.`), { statusCode: 404 });
        }
      },
    }),
  };
}
