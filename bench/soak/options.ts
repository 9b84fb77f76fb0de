import { commandLine, usageError } from '../../src/host/command-line.js';

const SOAK_COMMAND = {
  name: 'soak',
  usage: `usage: npm run soak -- [--minutes 10] [--seed N] [--hubs 3] [--partitions 1] [--devices 500] [--rate 2] [--subscribers 1000]

A chaos soak: hub instances on a private Redis, Mosquitto and PostgreSQL (and the shared RabbitMQ),
a device fleet at QoS 1 (every tenth device at QoS 0), subscribers over socket.io and reliable Web
PubSub, and every 30 s a fault from a seeded schedule. Prints a table per fault and a verdict;
exits 0 only when every invariant held (bench/soak/README.md).

  --minutes      how long faults are injected (default 10)
  --seed         the fault schedule's seed (default: drawn and printed, so a run can be repeated)
  --hubs         hub instances (default 3)
  --partitions   Cluster:IngestPartitions: the broker's devices in this many partitions, each
                 ingested by one instance (default 1: one ingest lease)
  --devices      devices, half in each of two tenants (default 500)
  --rate         readings per second per device (default 2)
  --subscribers  subscribers, half socket.io and half Web PubSub (default 1000)
  --judge        the invariants the exit code depends on (default all: exactness,tenants,memory,readiness);
                 the others are still measured and printed`,
  options: {
    minutes: { type: 'string' },
    seed: { type: 'string' },
    hubs: { type: 'string' },
    partitions: { type: 'string' },
    devices: { type: 'string' },
    rate: { type: 'string' },
    subscribers: { type: 'string' },
    judge: { type: 'string' },
  },
} as const;

export interface SoakOptions {
  minutes: number;
  seed: number;
  hubs: number;
  partitions: number;
  devices: number;
  rate: number;
  subscribers: number;
  judge: Invariant[];
}

export const INVARIANTS = ['exactness', 'tenants', 'memory', 'readiness'] as const;
export type Invariant = (typeof INVARIANTS)[number];

/** The soak's flags, checked: a bad value exits 64 with the usage. */
export function soakOptions(argv: readonly string[] = process.argv.slice(2)): SoakOptions {
  const { values } = commandLine(SOAK_COMMAND, argv);
  const number = (name: keyof typeof values, fallback: number, ok: (n: number) => boolean, what: string) => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || !ok(n)) usageError(SOAK_COMMAND, `--${name} must be ${what}`);
    return n;
  };
  const integer = (n: number) => Number.isInteger(n);
  const judge = (values.judge ?? INVARIANTS.join(',')).split(',').map((j) => j.trim());
  const unknown = judge.filter((j) => !(INVARIANTS as readonly string[]).includes(j));
  if (unknown.length > 0 || judge.length === 0)
    usageError(SOAK_COMMAND, `--judge takes a list of ${INVARIANTS.join(', ')}; not ${unknown.join(', ')}`);
  return {
    minutes: number('minutes', 10, (n) => n > 0 && n <= 24 * 60, 'a number of minutes above 0'),
    seed: number('seed', Math.floor(Math.random() * 2 ** 31), (n) => integer(n) && n >= 0, 'an integer ≥ 0'),
    hubs: number('hubs', 3, (n) => integer(n) && n >= 2 && n <= 16, 'an integer from 2 to 16'),
    partitions: number('partitions', 1, (n) => integer(n) && n >= 1 && n <= 64, 'an integer from 1 to 64'),
    devices: number('devices', 500, (n) => integer(n) && n >= 2 && n <= 100_000, 'an integer from 2 to 100000'),
    rate: number('rate', 2, (n) => n > 0 && n <= 100, 'a rate above 0 and at most 100'),
    subscribers: number('subscribers', 1000, (n) => integer(n) && n >= 2, 'an integer ≥ 2'),
    judge: judge as Invariant[],
  };
}
