import { ID_PATTERN, isValidId } from '../host/ids.js';
import type { CommandValues } from '../host/command-line.js';

export interface SimulatorArgs {
  url: string | undefined;
  eventhubs: string | undefined;
  eventhubName: string | undefined;
  tenant: string;
  devices: number;
  rate: number;
  qos: 0 | 1;
  /** Signs device tokens (one connection per device); undefined → the caller's default. */
  deviceKey: string | undefined;
}

export const SIMULATOR_USAGE = `usage: npm run simulate -- (--url mqtt://HOST:PORT | --eventhubs CONNECTION_STRING [--eventhub NAME])
                             [--tenant demo] [--devices 10] [--rate 1] [--qos 0] [--device-key KEY]
       npm run simulate -- --help | --version
  --rate is readings per device per second.
  --device-key signs each device's token for the embedded broker (one connection per device); default:
  the environment variable Ingestion__Mqtt__DeviceKey, else the development key \`npm start\` uses.`;

export const SIMULATOR_COMMAND = {
  name: 'simulate',
  usage: SIMULATOR_USAGE,
  options: {
    url: { type: 'string' },
    eventhubs: { type: 'string' },
    eventhub: { type: 'string' },
    tenant: { type: 'string', default: 'demo' },
    devices: { type: 'string', default: '10' },
    rate: { type: 'string', default: '1' },
    qos: { type: 'string', default: '0' },
    'device-key': { type: 'string' },
  },
} as const;

/** Checks the simulator's parsed flags; throws an Error whose message names the bad flag. */
export function toSimulatorArgs(values: CommandValues<typeof SIMULATOR_COMMAND.options>): SimulatorArgs {
  if (!values.url === !values.eventhubs) throw new Error('give exactly one of --url or --eventhubs');
  if (values.url && !/^(mqtts?|tcp|ssl|wss?):\/\//.test(values.url))
    throw new Error('--url must be an MQTT URL such as mqtt://127.0.0.1:1884');
  if (!isValidId(values.tenant)) throw new Error(`--tenant must match ${ID_PATTERN.source}`);
  const devices = Number(values.devices);
  if (!Number.isInteger(devices) || devices < 1 || devices > 100_000)
    throw new Error('--devices must be an integer from 1 to 100000');
  const rate = Number(values.rate);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 1000)
    throw new Error('--rate must be a number above 0, up to 1000');
  if (values.qos !== '0' && values.qos !== '1') throw new Error('--qos must be 0 or 1');
  const deviceKey = values['device-key'];
  if (deviceKey !== undefined && Buffer.byteLength(deviceKey) < 32)
    throw new Error('--device-key must be at least 32 bytes');
  return {
    url: values.url,
    eventhubs: values.eventhubs,
    eventhubName: values.eventhub,
    tenant: values.tenant!,
    devices,
    rate,
    qos: values.qos === '1' ? 1 : 0,
    deviceKey,
  };
}
