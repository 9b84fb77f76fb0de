/** JSON Schema of a Reading on the wire (contract "Reading"), for the API descriptions. */
export const READING_SCHEMA = {
  type: 'object',
  required: ['tenantId', 'deviceId', 'seq', 'ts', 'receivedAt', 'data'],
  properties: {
    tenantId: { type: 'string' },
    deviceId: { type: 'string' },
    seq: { type: 'integer', description: 'increases per device' },
    ts: { type: 'integer', description: 'epoch ms' },
    receivedAt: { type: 'integer', description: 'epoch ms' },
    data: { type: 'object' },
  },
} as const;
