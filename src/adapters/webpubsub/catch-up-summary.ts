import type { CatchUpSummary } from '../../realtime/catch-up.js';
import { HubOutboundMessage } from '../../wire/outbound-message.js';
import { toWireReading, type Reading } from '../../wire/reading.js';

/**
 * The server message that says what a catch-up replays next: `{ catchUp: { deviceId, since, last,
 * replayed, truncated } }` (docs/realtime-api.md "Catch-up").
 */
export function catchUpSummaryMessage(
  deviceId: string,
  since: number,
  last: Reading | undefined,
  { replayed, truncated }: CatchUpSummary,
): HubOutboundMessage {
  const summary = {
    catchUp: { deviceId, since, last: last === undefined ? null : toWireReading(last), replayed, truncated },
  };
  return new HubOutboundMessage({ kind: 'server' }, 'json', summary);
}
