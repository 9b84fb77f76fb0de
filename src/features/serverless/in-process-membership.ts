import type { GroupMembershipService } from '../../wire/serverless/subscribe.js';
import type { ManagementService } from '../management/management-service.js';
import { Errors } from '../../host/errors.js';

/**
 * The hub's management service in the shape the `subscribe` function calls (the subset of
 * `WebPubSubServiceClient` it uses), so the host runs the function's own handler without a
 * loopback HTTP call and a self-signed token. Failures reject as the service client's do: an
 * unknown connection with `statusCode: 404`, a connection at its group cap with the code
 * `HUB_ERR_HUB_LIMIT`.
 */
export function inProcessMembership(management: ManagementService): GroupMembershipService {
  return {
    group: (groupName) => ({
      addConnection: async (connectionId) => {
        const joined = await management.addConnectionToGroup(groupName, connectionId);
        if (joined === 'unknown-connection') {
          throw Object.assign(new Error(`Connection '${connectionId}' does not exist.`), { statusCode: 404 });
        }
        if (joined === 'group-limit') {
          throw Object.assign(new Error(`Connection '${connectionId}' follows as many devices as it may.`), {
            statusCode: 429,
            code: Errors.HUB_LIMIT.code,
          });
        }
      },
      listConnections: async function* () {
        yield* await management.groupConnections(groupName);
      },
    }),
  };
}
