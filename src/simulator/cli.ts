import { createEventHubsPublisher } from '../adapters/eventhubs/eventhubs-publisher.js';
import { createMqttPublisher } from '../adapters/mqtt/mqtt-publisher.js';
import type { ReadingPublisher } from '../features/simulator/publisher.js';
import { runSimulator, simulatorDeviceId } from '../features/simulator/simulator.js';
import { DEV_DEVICE_KEY } from '../host/security/dev-defaults.js';
import { commandLine, usageError } from '../host/command-line.js';
import { SIMULATOR_COMMAND, toSimulatorArgs, type SimulatorArgs } from './simulator-args.js';

let args: SimulatorArgs;
try {
  args = toSimulatorArgs(commandLine(SIMULATOR_COMMAND).values);
} catch (err) {
  usageError(SIMULATOR_COMMAND, (err as Error).message);
}

let publisher: ReadingPublisher;
try {
  // Tokens are harmless where a broker does not ask for them (Mosquitto with anonymous access).
  const deviceKey = args.deviceKey ?? process.env['Ingestion__Mqtt__DeviceKey'] ?? DEV_DEVICE_KEY;
  const deviceIds = Array.from({ length: args.devices }, (_, i) => simulatorDeviceId(i));
  publisher = args.url
    ? await createMqttPublisher(args.url, { qos: args.qos, deviceKey, devices: { tenantId: args.tenant, deviceIds } })
    : await createEventHubsPublisher(args.eventhubs!, args.eventhubName);
} catch (err) {
  process.stderr.write(`simulate: cannot connect: ${(err as Error).message}\n`);
  process.exit(1);
}

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());
const target = args.url ?? 'Event Hubs';
process.stdout.write(
  `simulating ${args.devices} devices of tenant ${args.tenant} at ${args.rate}/s each → ${target} (Ctrl-C stops)\n`,
);
let errors = 0;
const sent = await runSimulator(
  { tenant: args.tenant, devices: args.devices, rate: args.rate, publisher, onError: () => errors++ },
  controller.signal,
);
await publisher.close();
process.stdout.write(`sent ${sent} readings${errors ? `, ${errors} failed` : ''}\n`);
process.exit(0);
