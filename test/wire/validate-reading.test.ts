import { describe, expect, it } from 'vitest';
import { DROP_REASONS, type DropReason } from '../../src/wire/drop-reason.js';
import type { RawReading } from '../../src/wire/raw-reading.js';
import { validateReading } from '../../src/wire/validate-reading.js';

const NOW = 1_763_800_000_004;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const raw = (payload: Uint8Array | string, over: Partial<RawReading> = {}): RawReading => ({
  tenantId: 'demo',
  deviceId: 'dev-001',
  payload: typeof payload === 'string' ? bytes(payload) : payload,
  ...over,
});
const nested = (levels: number): string => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
const reasonOf = (r: RawReading): DropReason | 'ok' => {
  const result = validateReading(r, NOW);
  return result.ok ? 'ok' : result.reason;
};

describe('validateReading accepts', () => {
  it('a reading without ts, stamped with server time, every field as data', () => {
    const result = validateReading(raw('{"temperature":21.5,"humidity":40.1}'), NOW);
    expect(result).toEqual({
      ok: true,
      value: {
        tenantId: 'demo',
        deviceId: 'dev-001',
        ts: NOW,
        receivedAt: NOW,
        data: { temperature: 21.5, humidity: 40.1 },
      },
    });
  });

  it('an epoch-ms ts, kept out of data', () => {
    const result = validateReading(raw('{"ts":1763800000000,"t":1}'), NOW);
    expect(result.ok && result.value).toMatchObject({ ts: 1763800000000, data: { t: 1 } });
    expect(result.ok && 'ts' in result.value.data).toBe(false);
  });

  it.each([
    ['2025-11-22T08:26:40Z', Date.UTC(2025, 10, 22, 8, 26, 40)],
    ['2025-11-22T08:26:40.123Z', Date.UTC(2025, 10, 22, 8, 26, 40, 123)],
    ['2025-11-22T08:26:40.123456+01:00', Date.UTC(2025, 10, 22, 7, 26, 40, 123)],
    ['2025-11-22T08:26:40-0230', Date.UTC(2025, 10, 22, 10, 56, 40)],
    ['2025-11-22T08:26', Date.UTC(2025, 10, 22, 8, 26)],
    ['2025-11-22T08:26:40', Date.UTC(2025, 10, 22, 8, 26, 40)],
    ['2025-11-22', Date.UTC(2025, 10, 22)],
  ])('an ISO 8601 ts %s', (ts, expected) => {
    const result = validateReading(raw(JSON.stringify({ ts, v: 1 })), NOW);
    expect(result.ok && result.value.ts).toBe(expected);
  });

  it('nesting of exactly 32 levels, with brackets inside strings not counted', () => {
    expect(reasonOf(raw(nested(32)))).toBe('ok');
    expect(reasonOf(raw(JSON.stringify({ s: '{{{{[[[['.repeat(10), q: `"${'{'.repeat(40)}` })))).toBe('ok');
  });

  it('a payload of exactly 16 KiB', () => {
    const base = '{"s":""}';
    const payload = `{"s":"${'x'.repeat(16384 - base.length)}"}`;
    expect(bytes(payload).byteLength).toBe(16384);
    expect(reasonOf(raw(payload))).toBe('ok');
  });

  it('the transport traceparent, and a UTF-8 byte order mark', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"a":"é"}')]);
    const result = validateReading(raw(withBom, { traceparent: tp }), NOW);
    expect(result.ok && result.value).toMatchObject({ traceparent: tp, data: { a: 'é' } });
  });

  it('a "__proto__" field as plain data without touching prototypes', () => {
    const result = validateReading(raw('{"__proto__":{"polluted":true},"v":1}'), NOW);
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(result.ok && Object.getPrototypeOf(result.value.data)).toBe(Object.prototype);
  });
});

describe('validateReading drops', () => {
  const cases: [string, RawReading, DropReason][] = [
    ['a missing tenant id', raw('{}', { tenantId: undefined }), 'bad_tenant_id'],
    ['a tenant id with a slash', raw('{}', { tenantId: 'a/b' }), 'bad_tenant_id'],
    ['a tenant id starting with a dash', raw('{}', { tenantId: '-demo' }), 'bad_tenant_id'],
    ['a missing device id', raw('{}', { deviceId: undefined }), 'bad_device_id'],
    ['a 65-character device id', raw('{}', { deviceId: 'd'.repeat(65) }), 'bad_device_id'],
    ['a payload of 16 KiB + 1', raw(`{"s":"${'x'.repeat(16384 - 7)}"}`), 'too_large'],
    ['invalid UTF-8', raw(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])), 'bad_utf8'],
    ['a truncated UTF-8 sequence', raw(new Uint8Array([0x7b, 0x7d, 0xe2, 0x82])), 'bad_utf8'],
    ['an empty payload', raw(''), 'bad_json'],
    ['text that is not JSON', raw('temperature=21.5'), 'bad_json'],
    ['truncated JSON', raw('{"a":1'), 'bad_json'],
    ['a JSON array', raw('[1,2]'), 'not_object'],
    ['a JSON number', raw('42'), 'not_object'],
    ['JSON null', raw('null'), 'not_object'],
    ['a JSON string', raw('"{}"'), 'not_object'],
    ['33 levels of nesting', raw(nested(33)), 'too_deep'],
    ['16 KiB of nested arrays inside an object', raw(`{"a":${'['.repeat(8000)}${']'.repeat(8000)}}`), 'too_deep'],
    ['a ts that is not ISO 8601', raw('{"ts":"March 7, 2025"}'), 'bad_ts'],
    ['a ts on a day that does not exist', raw('{"ts":"2025-02-30T00:00:00Z"}'), 'bad_ts'],
    ['a ts with hour 24', raw('{"ts":"2025-02-03T24:00:00Z"}'), 'bad_ts'],
    ['a ts that is null', raw('{"ts":null}'), 'bad_ts'],
    ['a ts that is a boolean', raw('{"ts":true}'), 'bad_ts'],
    ['a ts beyond the representable range', raw('{"ts":1e300}'), 'bad_ts'],
  ];

  it.each(cases)('%s', (_name, input, reason) => {
    expect(reasonOf(input)).toBe(reason);
  });

  it('covers every validation drop reason in these cases', () => {
    // `duplicate` (a repeated transport-numbered reading) and `device_limit` (no room for a new
    // device) are the pipeline's own reasons, `topic_not_allowed` the embedded broker's
    // (test/adapters/mqtt/embedded-broker.test.ts) and `untrusted_device_id` the Event Hubs source's
    // (test/host/security/eventhubs-tenant.test.ts): none is validation's.
    const notValidation: readonly string[] = [
      'duplicate',
      'device_limit',
      'topic_not_allowed',
      'untrusted_device_id',
      'backlog',
      'fenced',
      'redelivered',
    ];
    expect(new Set(cases.map((c) => c[2]))).toEqual(new Set(DROP_REASONS.filter((r) => !notValidation.includes(r))));
  });

  it('checks size before decoding: an oversized payload of invalid UTF-8 is too_large', () => {
    expect(reasonOf(raw(new Uint8Array(16385).fill(0xff)))).toBe('too_large');
  });
});
