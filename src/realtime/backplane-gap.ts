import type { CatchUp } from './catch-up.js';
import type { Hub } from './hub.js';
import { parseDeviceGroup } from '../wire/reading.js';

/**
 * What other instances published while this instance's backplane subscription was down (its Redis
 * connection dropped, Redis restarted) never reached this instance's members. As the subscription
 * is restored, the newest seq this instance has of each watched device is noted (nothing newer can
 * have come); once it is, each member of the device's group catches up from there (CatchUp: the
 * live readings arriving meanwhile are held, so none comes twice or out of order). A device this
 * instance had no reading of is left alone: its members asked for nothing older than what comes
 * live. Returns the handler for `RedisBackplane.onResubscribe`.
 */
export function backplaneGapRecovery(
  hub: Hub,
  catchUp: CatchUp,
  lastSeq: (tenantId: string, deviceId: string) => number | undefined,
  log: { warn(obj: object, msg: string): void },
): (groups: readonly string[]) => () => void {
  return (groups) => {
    const from: { group: string; tenantId: string; deviceId: string; since: number }[] = [];
    for (const group of groups) {
      const device = parseDeviceGroup(group);
      const since = device === null ? undefined : lastSeq(device.tenantId, device.deviceId);
      if (since !== undefined) from.push({ group, ...device!, since });
    }
    return () => {
      for (const { group, tenantId, deviceId, since } of from) {
        for (const { connectionId } of hub.membersOf(group))
          catchUp.start({ connectionId, tenantId, deviceId, since }, ({ truncated }) => {
            if (truncated)
              log.warn(
                { connectionId, tenantId, deviceId, since },
                'readings missed while the backplane was down not all replayed',
              );
          });
      }
    };
  };
}
