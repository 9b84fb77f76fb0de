import type { KeyDefinition } from '../host/config/key-definition.js';
import * as p from '../host/config/parsers.js';

/** The Redis backplane's key; its requirement reads ConnectionStrings:eventhubs (INGESTION_KEYS), hence `dependent`. */
export const BACKPLANE_KEYS: readonly KeyDefinition[] = [
  // Event Hubs checkpoints in memory replay every retained event after each restart: not in Production.
  {
    key: 'ConnectionStrings:redis',
    parse: p.url(['redis', 'rediss']),
    secret: true,
    dependent: true,
    required: (ctx) => ctx.environment === 'Production' && ctx.get('ConnectionStrings:eventhubs') !== undefined,
    requiredWhen: 'when ConnectionStrings:eventhubs is set (Event Hubs checkpoints; in memory every restart reads all retained events again)',
  },
];
