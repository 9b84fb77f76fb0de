// Devices for browser tests of the real hub: real MQTT publishes to the hub's (embedded) broker.
import { DeviceFleet } from '../../support/mqtt-device.js';

export interface Stream {
  /** Readings published so far. */
  readonly sent: number;
  stop(): void;
}

/** Value of the first metric for reading `n` of a device: always changes, stays in a readable range. */
function temperature(n: number, phase: number): number {
  return Math.round((21 + 3 * Math.sin(n / 15 + phase) + (n % 7) / 10) * 100) / 100;
}

export class MqttDevices {
  private readonly streams = new Set<Stream>();

  private constructor(private readonly client: DeviceFleet) {}

  /** Each device connects with a device token of its own, as the embedded broker requires. */
  static async connect(brokerUrl: string, deviceKey?: string): Promise<MqttDevices> {
    return new MqttDevices(new DeviceFleet(brokerUrl, deviceKey === undefined ? {} : { deviceKey }));
  }

  /** One reading, `ts` = now; resolves once the broker has it (QoS 1). */
  async publish(tenant: string, deviceId: string, data: Record<string, unknown>): Promise<void> {
    await this.client.publishAsync(
      `tenants/${tenant}/devices/${deviceId}/telemetry`,
      JSON.stringify({ ts: Date.now(), ...data }),
      { qos: 1 },
    );
  }

  /**
   * Publishes `perSecond` readings per device (QoS 0) until stopped. Paced by the clock, not by timer
   * ticks, so a late timer publishes the readings it owes instead of lowering the rate.
   */
  stream(tenant: string, deviceIds: readonly string[], perSecond: number): Stream {
    const started = performance.now();
    let sent = 0;
    let n = 0;
    const tick = () => {
      const due = Math.floor(((performance.now() - started) / 1000) * perSecond) + 1;
      for (; n < due; n++) {
        deviceIds.forEach((id, i) => {
          const data = {
            temperature: temperature(n, i),
            humidity: Math.round((45 + 5 * Math.cos(n / 20 + i)) * 10) / 10,
          };
          this.client.publish(
            `tenants/${tenant}/devices/${id}/telemetry`,
            JSON.stringify({ ts: Date.now(), ...data }),
            { qos: 0 },
          );
          sent++;
        });
      }
    };
    tick();
    const timer = setInterval(tick, Math.max(5, Math.floor(1000 / perSecond / 2)));
    const stream: Stream = {
      get sent() {
        return sent;
      },
      stop: () => {
        clearInterval(timer);
        this.streams.delete(stream);
      },
    };
    this.streams.add(stream);
    return stream;
  }

  async close(): Promise<void> {
    for (const s of [...this.streams]) s.stop();
    await this.client.endAsync();
  }
}
