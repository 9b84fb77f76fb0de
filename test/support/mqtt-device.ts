import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { DEV_DEVICE_KEY } from '../../src/security/dev-defaults.js';
import { signDeviceToken } from '../../src/security/device-token.js';

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
  options: IClientOptions & { key?: string } = {},
): Promise<MqttClient> {
  const { key, ...rest } = options;
  return mqtt.connectAsync(brokerUrl, {
    clientId: `${tenantId}-${deviceId}-${process.pid}-${++clients}`,
    username: deviceId,
    password: await deviceToken(tenantId, deviceId, key),
    reconnectPeriod: 0,
    ...rest,
  });
}
