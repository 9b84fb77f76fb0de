/**
 * Why a raw reading was dropped; the one list stats, logs and sources share.
 * Order follows the checks in `validateReading`, then the pipeline's own.
 */
export const DROP_REASONS = [
  'bad_tenant_id',
  'bad_device_id',
  'too_large',
  'bad_utf8',
  'bad_json',
  'not_object',
  'too_deep',
  'bad_ts',
  // A transport-numbered reading delivered again (e.g. the in-flight batch re-read after a restart).
  'duplicate',
  // A new device of a tenant at `Hub:MaxDevicesPerTenant`, or of a hub at `Hub:MaxDevices`.
  'device_limit',
  // The embedded broker refused a publish to a topic other than the device's own (connection closed).
  'topic_not_allowed',
  // An Event Hubs event whose device id only its sender vouches for (no `iothub-connection-device-id`)
  // while `Ingestion:EventHubs:TrustSenderDeviceId` is false.
  'untrusted_device_id',
  // More readings waiting for their cluster-wide seq than the pipeline holds (a Redis that stalls).
  'backlog',
  // A reading of an ingest lease holding that ended (a successor took over while this instance
  // stalled): it gets no seq and is not published.
  'fenced',
  // A reading already accepted within the redelivery window (the broker sent it again after a
  // reconnect or a crash of the ingester, or the device republished it): it keeps its first seq.
  'redelivered',
] as const;

export type DropReason = (typeof DROP_REASONS)[number];

/** A zeroed counter per reason, so every reason shows up in stats even before it happens. */
export function emptyDropCounts(): Record<DropReason, number> {
  const counts = {} as Record<DropReason, number>;
  for (const reason of DROP_REASONS) counts[reason] = 0;
  return counts;
}
