import type { ReceivedEventData } from '@azure/event-hubs';
import { describe, expect, it } from 'vitest';
import { eventToRawReading as toRaw, type EventFields } from '../../../src/wire/eventhubs/event-to-raw-reading.js';
import type { EventTenancy } from '../../../src/wire/eventhubs/event-tenancy.js';

function event(parts: Partial<ReceivedEventData>): ReceivedEventData {
  return {
    body: undefined,
    sequenceNumber: 0,
    offset: '0',
    enqueuedTimeUtc: new Date(),
    partitionKey: null,
    ...parts,
  } as ReceivedEventData;
}
const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
/** Senders trusted to name their device (`Ingestion:EventHubs:TrustSenderDeviceId=true`). */
const ONE_TENANT: EventTenancy = { tenant: 'acme', deviceTenants: new Map(), trustSenderDeviceId: true };
const eventToRawReading = (e: EventFields, tenancy: EventTenancy = ONE_TENANT) => {
  const { raw, refused } = toRaw(e, tenancy);
  expect(refused).toBeUndefined();
  return raw;
};

describe('eventToRawReading', () => {
  it('passes bytes through untouched', () => {
    const bytes = Buffer.from('{"temperature":21.5}');
    expect(eventToRawReading(event({ body: bytes })).payload).toBe(bytes);
    const plain = new Uint8Array([123, 125]);
    expect(eventToRawReading(event({ body: plain })).payload).toBe(plain);
  });

  it('serializes object bodies as UTF-8 JSON and takes string bodies as the text they are', () => {
    expect(text(eventToRawReading(event({ body: { t: 'é' } })).payload)).toBe('{"t":"é"}');
    // An AMQP string value (or the Functions binding's text body) holding JSON is that JSON.
    expect(text(eventToRawReading(event({ body: '{"t":1}' })).payload)).toBe('{"t":1}');
  });

  it('gives an empty payload for no body or one JSON cannot represent', () => {
    expect(eventToRawReading(event({ body: undefined })).payload).toHaveLength(0);
    expect(eventToRawReading(event({ body: { n: 1n } })).payload).toHaveLength(0);
  });

  it('takes device and traceparent from application properties, the tenant from configuration', () => {
    const raw = eventToRawReading(
      event({ body: Buffer.from('{}'), properties: { tenant_id: 'globex', deviceId: 'dev-1', traceparent: 'tp' } }),
    );
    expect(raw).toMatchObject({ tenantId: 'acme', deviceId: 'dev-1', traceparent: 'tp' });
  });

  it('maps devices to tenants; an unmapped device has no tenant unless one tenant is configured for the rest', () => {
    const deviceTenants = new Map([['boiler-1', 'globex']]);
    const mapped = { tenant: undefined, deviceTenants, trustSenderDeviceId: true };
    expect(eventToRawReading(event({ properties: { deviceId: 'boiler-1', tenant_id: 'acme' } }), mapped).tenantId).toBe(
      'globex',
    );
    expect(
      eventToRawReading(event({ properties: { deviceId: 'boiler-2', tenant_id: 'acme' } }), mapped).tenantId,
    ).toBeUndefined();
    expect(
      eventToRawReading(event({ properties: { deviceId: 'boiler-2' } }), {
        tenant: 'acme',
        deviceTenants,
        trustSenderDeviceId: true,
      }).tenantId,
    ).toBe('acme');
    expect(
      eventToRawReading(event({ systemProperties: { 'iothub-connection-device-id': 'boiler-1' } }), mapped).tenantId,
    ).toBe('globex');
  });

  it("prefers IoT Hub's authenticated device id over the application property", () => {
    const raw = eventToRawReading(
      event({
        properties: { deviceId: 'claimed' },
        systemProperties: { 'iothub-connection-device-id': 'authenticated' },
      }),
    );
    expect(raw.deviceId).toBe('authenticated');
  });

  it("refuses a sender's own deviceId unless senders are trusted; IoT Hub's authenticated id needs no trust", () => {
    const untrusted: EventTenancy = {
      tenant: 'acme',
      deviceTenants: new Map([['boiler-1', 'globex']]),
      trustSenderDeviceId: false,
    };
    const claimed = toRaw(
      event({ body: Buffer.from('{}'), properties: { deviceId: 'boiler-1', traceparent: 'tp' } }),
      untrusted,
    );
    expect(claimed.refused).toBe('untrusted_device_id');
    // The claim is kept for the drop's log line, but no tenant is looked up for it.
    expect(claimed.raw).toMatchObject({ deviceId: 'boiler-1', tenantId: undefined });

    const stamped = toRaw(
      event({ properties: { deviceId: 'boiler-1' }, systemProperties: { 'iothub-connection-device-id': 'boiler-1' } }),
      untrusted,
    );
    expect(stamped).toMatchObject({ refused: undefined, raw: { deviceId: 'boiler-1', tenantId: 'globex' } });
    // No device id at all is not a claim: validation drops it as bad_device_id, as before.
    expect(toRaw(event({ properties: {} }), untrusted)).toMatchObject({
      refused: undefined,
      raw: { deviceId: undefined },
    });
  });

  it('ignores properties that are not strings and omits an absent traceparent', () => {
    const raw = eventToRawReading(event({ properties: { tenant_id: 7, deviceId: ['x'] } }));
    // No device id, no tenant: the event is dropped whatever the configuration.
    expect(raw.deviceId).toBeUndefined();
    expect('traceparent' in raw).toBe(false);
  });
});
