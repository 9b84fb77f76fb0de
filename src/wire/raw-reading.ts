/** A message as a transport delivered it, before validation: where it claims to come from and its bytes. */
export interface RawReading {
  tenantId: string | undefined;
  deviceId: string | undefined;
  /** The message body exactly as received. */
  payload: Uint8Array;
  /** W3C traceparent carried by the transport (MQTT 5 user property, Event Hubs application property). */
  traceparent?: string;
  /**
   * A number the transport assigns that increases per device whichever instance reads it and
   * across restarts (Event Hubs: the partition's sequence number + 1, since a device's events share
   * a partition). It becomes the reading's `seq`; one at or below the device's last `seq` is a
   * repeated delivery and is dropped. Unset: the hub counts `seq` itself.
   */
  sequence?: number;
  /**
   * The fencing token of the ingest lease holding this reading was read under (a shared source in
   * a cluster); its `seq` and the shared writes made for it are refused once the token moved on.
   * Unset: the reading is this instance's alone (its embedded broker, an Event Hubs partition).
   */
  fence?: number;
  /**
   * The transport delivers this message until it is acknowledged (MQTT QoS 1), so it may come
   * again, to this instance or to whoever resumes the session: only such readings go through the
   * redelivery window (an MQTT QoS 0 reading is never sent twice by the broker).
   */
  resendable?: boolean;
  /**
   * The transport says it may have delivered this message before: MQTT's DUP flag (a QoS 1
   * message resent after a reconnect; the cluster-wide redelivery window is asked about it), or an
   * Event Hubs event a partition's new owner reads within a batch of the checkpoint (the previous
   * owner may have accepted it: the device's shared last value is asked, see `sequence`).
   */
  redelivered?: boolean;
}
