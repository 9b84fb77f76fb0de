/**
 * The IngestionSource contract every source runs (the checkpoint-store pattern): what the pipeline and
 * the ingestion service rely on. Readiness means readings flow; each reading reaches the sink with its
 * tenant, device and exact bytes, in order per device; a rejected reading never stops the source; an
 * abort stops it promptly. Devices publish through the real transport (a broker, the Event Hubs
 * service double), never into the source.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IngestionSource, ReadingSink, SinkResult } from '../../src/realtime/ingestion-source.js';
import type { RawReading } from '../../src/wire/raw-reading.js';
import { eventually } from '../support/app-harness.js';

export interface SourceUnderTest {
  readonly source: IngestionSource;
  /** Publishes as a device would; resolves once the transport has taken the message. */
  publish(tenantId: string, deviceId: string, payload: Uint8Array, traceparent?: string): Promise<void>;
  /** False where the transport has no place for a trace context (MQTT 3.1.1). */
  readonly carriesTraceparent: boolean;
  dispose(): Promise<void>;
}

/** Records what it is offered; rejects the payloads a test names, as the real sink rejects bad ones. */
class RecordingSink implements ReadingSink {
  readonly offered: RawReading[] = [];
  constructor(private readonly reject: (raw: RawReading) => boolean = () => false) {}

  offer(raw: RawReading): SinkResult {
    this.offered.push(raw);
    return this.reject(raw) ? { accepted: false, reason: 'malformed' } : { accepted: true };
  }
}

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

export function runIngestionSourceContract(name: string, create: () => Promise<SourceUnderTest>): void {
  describe(`${name} (IngestionSource contract)`, () => {
    let subject: SourceUnderTest;
    /** A tenant of this test alone: a shared broker may carry other tests' readings too. */
    let tenant: string;
    let stops: (() => Promise<void>)[];
    beforeEach(async () => {
      subject = await create();
      tenant = `t-${randomUUID().slice(0, 8)}`;
      stops = [];
    });
    afterEach(async () => {
      for (const stop of stops) await stop();
      await subject.dispose();
    });

    /** Runs the source into `sink`; `stop` aborts and resolves once `run` did. */
    const start = (sink: ReadingSink): { done: Promise<void>; stop: () => Promise<void> } => {
      const controller = new AbortController();
      const done = subject.source.run(sink, controller.signal);
      const stop = async (): Promise<void> => {
        controller.abort();
        await done;
      };
      stops.push(stop);
      return { done, stop };
    };
    const mine = (sink: RecordingSink): RawReading[] => sink.offered.filter((r) => r.tenantId === tenant);
    const connected = () => eventually(() => subject.source.connected, 10_000, `${name} connected`);

    it('is not connected before it runs nor after it stopped; connected while running', async () => {
      expect(subject.source.connected).toBe(false);
      const { stop } = start(new RecordingSink());
      await connected();
      await stop();
      expect(subject.source.connected).toBe(false);
    });

    it('once connected, hands every reading to the sink with its tenant, device and exact bytes', async () => {
      const sink = new RecordingSink();
      start(sink);
      await connected();
      const bytes = Buffer.from([0x7b, 0x22, 0xff, 0x00, 0xfe]); // not UTF-8, not JSON: sources never judge
      await subject.publish(tenant, 'dev-a', json({ temperature: 21.5 }));
      await subject.publish(tenant, 'dev-b', bytes);
      await eventually(() => mine(sink).length === 2, 10_000, 'two readings');

      const byDevice = new Map(mine(sink).map((r) => [r.deviceId, r]));
      expect(byDevice.get('dev-a')).toMatchObject({ tenantId: tenant, deviceId: 'dev-a' });
      expect(Buffer.from(byDevice.get('dev-a')!.payload).toString()).toBe('{"temperature":21.5}');
      expect(Buffer.from(byDevice.get('dev-b')!.payload).equals(bytes)).toBe(true);
    });

    it("keeps each device's order", async () => {
      const sink = new RecordingSink();
      start(sink);
      await connected();
      const devices = ['d0', 'd1', 'd2'];
      const sends: Promise<void>[] = [];
      for (let n = 0; n < 90; n++) sends.push(subject.publish(tenant, devices[n % 3]!, json({ n })));
      await Promise.all(sends);
      await eventually(() => mine(sink).length === 90, 10_000, '90 readings');

      for (const [i, device] of devices.entries()) {
        const ns = mine(sink)
          .filter((r) => r.deviceId === device)
          .map((r) => (JSON.parse(Buffer.from(r.payload).toString()) as { n: number }).n);
        expect(ns).toEqual(Array.from({ length: 30 }, (_, k) => k * 3 + i));
      }
    });

    it('goes on after the sink rejects a reading', async () => {
      const sink = new RecordingSink((raw) => Buffer.from(raw.payload).toString() === 'bad');
      start(sink);
      await connected();
      await subject.publish(tenant, 'dev', Buffer.from('bad'));
      await subject.publish(tenant, 'dev', json({ after: 'bad' }));
      await eventually(() => mine(sink).length === 2, 10_000, 'the reading after the rejected one');
      expect(mine(sink).map((r) => Buffer.from(r.payload).toString())).toEqual(['bad', '{"after":"bad"}']);
      expect(subject.source.connected).toBe(true);
    });

    it('carries the device trace context where the transport has one', async ({ skip }) => {
      if (!subject.carriesTraceparent) return skip();
      const sink = new RecordingSink();
      start(sink);
      await connected();
      await subject.publish(tenant, 'traced', json({ t: 1 }), TRACEPARENT);
      await subject.publish(tenant, 'untraced', json({ t: 2 }));
      await eventually(() => mine(sink).length === 2, 10_000, 'two readings');
      const byDevice = new Map(mine(sink).map((r) => [r.deviceId, r]));
      expect(byDevice.get('traced')!.traceparent).toBe(TRACEPARENT);
      expect(byDevice.get('untraced')!.traceparent).toBeUndefined();
    });

    it('stops promptly when aborted, and an already aborted run returns at once', async () => {
      const { stop } = start(new RecordingSink());
      await connected();
      const stopping = performance.now();
      await stop();
      expect(performance.now() - stopping).toBeLessThan(5000);

      const aborted = new AbortController();
      aborted.abort();
      await subject.source.run(new RecordingSink(), aborted.signal);
      expect(subject.source.connected).toBe(false);
    });
  });
}
