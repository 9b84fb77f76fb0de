import type { TriggerMetadata } from '@azure/functions';
import type { TelemetryEvent } from '../handlers/telemetry-to-groups.js';

/**
 * The events of an Event Hubs trigger invocation with `cardinality: 'many'`: the bodies are the
 * handler's first argument, and the per-event metadata arrives as parallel arrays in the context's
 * trigger metadata (`systemPropertiesArray`, `propertiesArray`, `sequenceNumberArray`; the Node
 * worker lowercases the first letter of every key, which leaves `iothub-connection-device-id`,
 * `tenant_id` and `deviceId` as they are). A single message (cardinality `one`) is a batch of one.
 */
export function eventsOfBatch(messages: unknown, metadata: TriggerMetadata | undefined): TelemetryEvent[] {
  const bodies = Array.isArray(messages) ? messages : [messages];
  const systemProperties = arrayOf(metadata?.['systemPropertiesArray']) ?? [metadata?.['systemProperties']];
  const properties = arrayOf(metadata?.['propertiesArray']) ?? [metadata?.['properties']];
  const sequenceNumbers = arrayOf(metadata?.['sequenceNumberArray']) ?? [metadata?.['sequenceNumber']];
  return bodies.map((body, i) => {
    const system = recordOf(systemProperties[i]);
    return {
      body,
      systemProperties: system,
      properties: recordOf(properties[i]),
      sequenceNumber:
        sequenceNumberOf(sequenceNumbers[i]) ??
        sequenceNumberOf(system['sequenceNumber']) ??
        sequenceNumberOf(system['x-opt-sequence-number']),
    };
  });
}

function arrayOf(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

function recordOf(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Sequence numbers are 64-bit; the worker may hand them over as numbers or as decimal strings. */
function sequenceNumberOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
