import mqtt, { type MqttClient } from 'mqtt';
import { telemetryTopic } from '../../wire/telemetry-topic.js';
import { signDeviceToken } from '../../host/security/device-token.js';
import type { ReadingPublisher } from '../../features/simulator/publisher.js';

export interface MqttPublisherOptions {
  /** QoS 0 by default, as sensors usually do. */
  qos?: 0 | 1;
  /** Client id, or with `deviceKey` the prefix of each device's client id. */
  clientId?: string;
  /**
   * Signs a device token for each device (`Ingestion:Mqtt:DeviceKey`): every device then gets a
   * connection of its own, as the embedded broker lets a device publish only as itself.
   */
  deviceKey?: string;
  /** With `deviceKey`: the devices to connect before the publisher is returned. */
  devices?: { tenantId: string; deviceIds: readonly string[] };
}

/** Publishes readings to the contract topic, over one connection, or one per device with device tokens. */
export async function createMqttPublisher(url: string, options: MqttPublisherOptions = {}): Promise<ReadingPublisher> {
  const qos = options.qos ?? 0;
  const clientId = options.clientId ?? `sim-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;
  const send = (client: MqttClient, tenantId: string, deviceId: string, payload: object, traceparent?: string) => {
    const properties =
      traceparent && client.options.protocolVersion === 5 ? { userProperties: { traceparent } } : undefined;
    client.publish(telemetryTopic(tenantId, deviceId), JSON.stringify(payload), {
      qos,
      ...(properties ? { properties } : {}),
    });
  };
  const { deviceKey } = options;
  if (deviceKey === undefined) {
    const client = await connect(url, clientId);
    return {
      publish: (tenantId, deviceId, payload, traceparent) => send(client, tenantId, deviceId, payload, traceparent),
      close: () => client.endAsync(false),
    };
  }

  const clients = new Map<string, Promise<MqttClient>>();
  const clientOf = (tenantId: string, deviceId: string): Promise<MqttClient> => {
    const key = `${tenantId}/${deviceId}`;
    let client = clients.get(key);
    if (!client) {
      client = signDeviceToken({ tenantId, deviceId, key: deviceKey }).then((token) =>
        // The username is ignored by the embedded broker, but MQTT 3.1.1 sends a password only with one.
        connect(url, `${clientId}-${deviceId}`, { username: deviceId, password: token }),
      );
      clients.set(key, client);
    }
    return client;
  };
  if (options.devices) {
    const { tenantId, deviceIds } = options.devices;
    try {
      await Promise.all(deviceIds.map((id) => clientOf(tenantId, id)));
    } catch (err) {
      await closeAll(clients);
      throw err;
    }
  }
  return {
    publish: async (tenantId, deviceId, payload, traceparent) =>
      send(await clientOf(tenantId, deviceId), tenantId, deviceId, payload, traceparent),
    close: () => closeAll(clients),
  };
}

async function connect(
  url: string,
  clientId: string,
  credentials: { username?: string; password?: string } = {},
): Promise<MqttClient> {
  const client = await mqtt.connectAsync(url, {
    clientId,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    ...credentials,
  });
  // mqtt.js leaves Nagle on; readings are small and latency matters.
  (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
  client.on('connect', () => (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true));
  client.on('error', () => undefined);
  return client;
}

async function closeAll(clients: Map<string, Promise<MqttClient>>): Promise<void> {
  const settled = await Promise.allSettled(clients.values());
  await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.endAsync(false) : undefined)));
}
