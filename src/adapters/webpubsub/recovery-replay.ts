import type { CatchUp } from '../../realtime/catch-up.js';
import type { Hub } from '../../realtime/hub.js';
import type { ReplayFrom } from '../../realtime/transport-connection.js';
import { parseDeviceGroup, type Reading } from '../../wire/reading.js';
import { catchUpSummaryMessage } from './catch-up-summary.js';
import type { WebPubSubConnection } from './web-pubsub-connection.js';

/**
 * What a recovered reliable session does with the readings its outbox held back while it had no
 * socket: per device group it still follows, a catch-up from the history after the last seq it
 * was given (CatchUp: gated join, live readings held and deduplicated by seq, at most
 * `Hub:CatchUpMax`). Transparent unless readings are missing: a replay that could not bring them
 * all is announced as a subscribe with `since` announces it, a `catchUp` server message with
 * `truncated: true`. Declines (the newest held reading then follows, as before) for a group it
 * left, and while a catch-up of the device runs on the connection already (its gate has the stream).
 */
export function recoveryReplay(
  hub: Hub,
  catchUp: CatchUp,
  connection: WebPubSubConnection,
  lastReading: ((tenantId: string, deviceId: string) => Reading | undefined) | undefined,
): ReplayFrom {
  const groups = new Set(hub.groupsOf(connection.id));
  return (group, since) => {
    const device = parseDeviceGroup(group);
    if (device === null || !groups.has(group)) return false;
    const { tenantId, deviceId } = device;
    const started = catchUp.start({ connectionId: connection.id, tenantId, deviceId, since }, (summary) => {
      if (summary.truncated)
        connection.send(catchUpSummaryMessage(deviceId, since, lastReading?.(tenantId, deviceId), summary));
    });
    return started === 'joined';
  };
}
