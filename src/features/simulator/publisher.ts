/** Where simulated readings go: an MQTT broker or Event Hubs. */
export interface ReadingPublisher {
  publish(tenantId: string, deviceId: string, payload: object, traceparent?: string): Promise<void> | void;
  close(): Promise<void>;
}
