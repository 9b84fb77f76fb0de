import { isDevelopment as dev, type KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';
import { ID_PATTERN } from '../../host/ids.js';

/** The built-in device simulator's configuration keys. */
export const SIMULATOR_KEYS: readonly KeyDefinition[] = [
  {
    key: 'Simulator:Devices',
    doc: 'devices of the built-in simulator (`sim-001`, `sim-002`, …); 0 turns it off',
    parse: p.int(0, 100_000),
    default: (ctx) => (dev(ctx) ? 10 : 0),
  },
  {
    key: 'Simulator:Tenant',
    doc: "the built-in simulator's tenant",
    parse: p.str({ pattern: ID_PATTERN }),
    default: () => 'demo',
  },
  // readings per device per second
  {
    key: 'Simulator:Rate',
    doc: 'readings per device per second of the built-in simulator',
    parse: p.num(0, 1000, { exclusiveMin: true }),
    default: () => 1,
  },
];
