import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { DEV_DEVICE_KEY } from '../../src/host/security/dev-defaults.js';
import { signDeviceToken } from '../../src/host/security/device-token.js';

/** A device token signed with the development key (what `npm start` and the test harness use). */
export function deviceToken(tenantId: string, deviceId: string, key: string = DEV_DEVICE_KEY): Promise<string> {
  return signDeviceToken({ tenantId, deviceId, key });
}

let clients = 0;

/**
 * An MQTT client authenticated as one device of the embedded broker: password = its device token
 * (the username is ignored, but MQTT 3.1.1 sends a password only with one). No reconnects unless
 * `options` asks for them.
 */
export async function connectDevice(
  brokerUrl: string,
  tenantId: string,
  deviceId: string,
  options: IClientOptions & { deviceKey?: string } = {},
): Promise<MqttClient> {
  const { deviceKey, ...rest } = options;
  return mqtt.connectAsync(brokerUrl, {
    clientId: `${tenantId}-${deviceId}-${process.pid}-${++clients}`,
    username: deviceId,
    password: await deviceToken(tenantId, deviceId, deviceKey),
    reconnectPeriod: 0,
    ...rest,
  });
}

/**
 * Publishes for any number of devices of the embedded broker, each over its own authenticated
 * connection (a device may publish only as itself), opened on its first publish. Publishes of one
 * device keep their order.
 */
export class DeviceFleet {
  readonly #clients = new Map<string, Promise<MqttClient>>();

  constructor(
    private readonly brokerUrl: string,
    private readonly options: IClientOptions & { deviceKey?: string } = {},
  ) {}

  /** The device's connection, opened (once) when first asked for. */
  client(tenantId: string, deviceId: string): Promise<MqttClient> {
    const key = `${tenantId}/${deviceId}`;
    let client = this.#clients.get(key);
    if (!client) {
      client = connectDevice(this.brokerUrl, tenantId, deviceId, this.options);
      this.#clients.set(key, client);
    }
    return client;
  }

  /** Fire and forget (QoS 0 unless told otherwise), in order per device. */
  publish(topic: string, payload: string | Buffer, options: { qos?: 0 | 1 } = {}): void {
    void this.publishAsync(topic, payload, options).catch(() => undefined);
  }

  /** Resolves once the broker has it (with QoS 1, its PUBACK). */
  async publishAsync(topic: string, payload: string | Buffer, options: { qos?: 0 | 1 } = {}): Promise<void> {
    const [, tenantId, , deviceId] = topic.split('/');
    const client = await this.client(tenantId!, deviceId!);
    await client.publishAsync(topic, payload, { qos: options.qos ?? 0 });
  }

  async endAsync(): Promise<void> {
    const settled = await Promise.allSettled(this.#clients.values());
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.endAsync() : undefined)));
    this.#clients.clear();
  }
}
