import { resolve } from 'node:path';
import type { CommandValues } from '../host/command-line.js';
import type { DevOptions } from './dev-plan.js';

export const DEV_USAGE = `usage: npm run dev -- [--port 8080] [--dashboard-port 18888] [--instances 2] [--devices 10] [--rate 1] [--data-dir .dev]
  --port            the gateway's port: the one endpoint to open (the dashboard of the hub)
  --dashboard-port  this orchestrator's own page (resources, states, live logs); 0 = any free port
  --instances       hub instances behind the gateway (1 when no local MQTT broker is installed)
  --data-dir        where the local PostgreSQL keeps its files between runs
  --help, --version`;

function int(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

export const DEV_COMMAND = {
  name: 'dev',
  usage: DEV_USAGE,
  options: {
    port: { type: 'string', default: '8080' },
    'dashboard-port': { type: 'string', default: '18888' },
    instances: { type: 'string', default: '2' },
    devices: { type: 'string', default: '10' },
    rate: { type: 'string', default: '1' },
    'data-dir': { type: 'string', default: '.dev' },
  },
} as const;

/** Checks `npm run dev`'s parsed flags; throws an Error naming the bad flag. */
export function toDevOptions(values: CommandValues<typeof DEV_COMMAND.options>, root: string): DevOptions {
  const rate = Number(values.rate);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 1000)
    throw new Error('--rate must be a number above 0, at most 1000');
  return {
    root,
    port: int('port', values.port, 0, 65535),
    dashboardPort: int('dashboard-port', values['dashboard-port'], 0, 65535),
    instances: int('instances', values.instances, 1, 16),
    devices: int('devices', values.devices, 0, 10_000),
    rate,
    dataDir: resolve(root, values['data-dir']),
  };
}
