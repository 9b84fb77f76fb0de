import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DROP_REASONS } from '../../../../src/wire/drop-reason.js';
import { telemetryReading } from '../../../../src/wire/telemetry-topic.js';
import { parseTimestamp } from '../../../../src/wire/parse-timestamp.js';
import { validateReading } from '../../../../src/wire/validate-reading.js';
import { hostileText, RUNS, withinBudget } from './fuzz-support.js';

/** Issue 12 item 9: what a device sends over MQTT (topic, payload bytes, `ts`) never makes the hub throw. */
describe('fuzz: MQTT reading payloads', () => {
  const id = fc.oneof(
    fc.string({ maxLength: 70 }),
    fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
    fc.constant(undefined),
  );
  const payload = fc.oneof(
    hostileText().map((t) => Buffer.from(t, 'utf8')),
    fc.uint8Array({ maxLength: 2048 }),
    fc.uint8Array({ minLength: 16 * 1024 - 4, maxLength: 16 * 1024 + 4 }),
    fc
      .record({ ts: fc.oneof(fc.anything(), fc.string(), fc.double()), v: fc.jsonValue({ maxDepth: 3 }) })
      .map((o) => Buffer.from(JSON.stringify(o) ?? '', 'utf8')),
  );

  it('validateReading gives a reading or a catalogued drop reason for any topic ids and payload bytes', () => {
    fc.assert(
      fc.property(id, id, payload, (tenantId, deviceId, bytes) => {
        const result = withinBudget(() => validateReading({ tenantId, deviceId, payload: bytes }, 1_000));
        if (result.ok) {
          expect(result.value.tenantId).toBe(tenantId);
          expect(typeof result.value.ts).toBe('number');
        } else {
          expect(DROP_REASONS).toContain(result.reason);
        }
      }),
      { numRuns: RUNS },
    );
  }, 60_000);

  it('parseTimestamp gives epoch ms or undefined for any value', () => {
    const isoish = fc
      .tuple(
        fc.integer({ min: -1, max: 10_000 }),
        fc.integer({ min: -1, max: 99 }),
        fc.integer({ min: -1, max: 99 }),
        fc.string({ maxLength: 30 }),
      )
      .map(
        ([y, m, d, rest]) =>
          `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}${rest}`,
      );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), isoish, hostileText(), fc.double()), (value) => {
        const ts = withinBudget(() => parseTimestamp(value));
        if (ts !== undefined) expect(Number.isFinite(ts)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  }, 60_000);

  it('telemetryReading gives ids (possibly undefined) for any topic', () => {
    const topicish = fc
      .tuple(fc.string({ maxLength: 70 }), fc.string({ maxLength: 70 }))
      .map(([t, d]) => `tenants/${t}/devices/${d}/telemetry`);
    fc.assert(
      fc.property(fc.oneof(topicish, hostileText()), (topic) => {
        const { tenantId, deviceId } = withinBudget(() => telemetryReading(topic, new Uint8Array(0)));
        for (const part of [tenantId, deviceId]) if (part !== undefined) expect(part).not.toContain('/');
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
