import fc from 'fast-check';
import { parseProtobufClientFrame } from '../../../../src/wire/webpubsub/parse-protobuf-client-frame.js';
import { UpstreamMessage } from '../../../../src/wire/webpubsub/protobuf-schema.js';
import { describe, expect, it } from 'vitest';
import { parseClientFrame } from '../../../../src/wire/webpubsub/parse-client-frame.js';
import { hostileText, RUNS, withinBudget } from './fuzz-support.js';

const FRAME_ERRORS = ['invalid-json', 'not-an-object', 'missing-type', 'unknown-type', 'invalid-field'];

/** Issue 12 item 9: client frames of the Web PubSub subprotocols, JSON and protobuf. */
describe('fuzz: Web PubSub JSON client frames', () => {
  /** Frames of the known types with fields of any JSON type: what a buggy or hostile client sends. */
  const frameLike = fc
    .record(
      {
        type: fc.oneof(
          fc.constantFrom('joinGroup', 'leaveGroup', 'sendToGroup', 'event', 'sequenceAck', 'ping', '', 'JOINGROUP'),
          fc.jsonValue(),
        ),
        group: fc.oneof(fc.string({ maxLength: 1100 }), fc.jsonValue(), fc.constant(' '.repeat(1025))),
        event: fc.oneof(fc.string(), fc.jsonValue()),
        ackId: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.jsonValue(), fc.constant(Number.MAX_SAFE_INTEGER + 2)),
        sequenceId: fc.oneof(fc.nat(), fc.double(), fc.jsonValue()),
        dataType: fc.oneof(fc.constantFrom('json', 'text', 'binary', 'protobuf'), fc.jsonValue()),
        data: fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.base64String({ maxLength: 400 }), fc.string()),
        noEcho: fc.oneof(fc.boolean(), fc.jsonValue()),
      },
      { requiredKeys: [] },
    )
    .map((frame) => JSON.stringify(frame));

  it('parseClientFrame gives a frame or a catalogued frame error for any text', () => {
    fc.assert(
      fc.property(fc.oneof(frameLike, hostileText()), (text) => {
        const result = withinBudget(() => parseClientFrame(text));
        if (result.ok) {
          expect(['joinGroup', 'leaveGroup', 'sendToGroup', 'event', 'sequenceAck', 'ping']).toContain(
            result.frame.type,
          );
        } else {
          expect(FRAME_ERRORS).toContain(result.error.code);
          if ('ackId' in result.error)
            expect(Number.isSafeInteger((result.error as { ackId: number }).ackId)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});

describe('fuzz: Web PubSub protobuf client frames', () => {
  const uint64 = fc
    .oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.constant(BigInt(Number.MAX_SAFE_INTEGER) + 2n))
    .map((n) => n.toString());
  const data = fc.oneof(
    fc.record({ textData: fc.string() }),
    fc.record({ binaryData: fc.uint8Array({ maxLength: 300 }) }),
    fc.record({ protobufData: fc.record({ type_url: fc.string(), value: fc.uint8Array({ maxLength: 100 }) }) }),
    fc.record({ jsonData: fc.oneof(fc.string(), fc.json()) }),
    fc.constant({}),
  );
  const group = fc.oneof(fc.string({ maxLength: 1100 }), fc.constant(' '.repeat(1025)), fc.constant(''));
  /** Well-formed UpstreamMessages with fields of any value, encoded by protobufjs from the published definitions. */
  const upstream = fc
    .oneof(
      fc.record({
        sendToGroupMessage: fc.record({ group, ackId: uint64, data, noEcho: fc.boolean() }, { requiredKeys: [] }),
      }),
      fc.record({ eventMessage: fc.record({ event: fc.string(), data, ackId: uint64 }, { requiredKeys: [] }) }),
      fc.record({ joinGroupMessage: fc.record({ group, ackId: uint64 }, { requiredKeys: [] }) }),
      fc.record({ leaveGroupMessage: fc.record({ group, ackId: uint64 }, { requiredKeys: [] }) }),
      fc.record({ sequenceAckMessage: fc.record({ sequenceId: uint64 }, { requiredKeys: [] }) }),
      fc.record({ pingMessage: fc.constant({}) }),
    )
    .map((message) => UpstreamMessage.encode(UpstreamMessage.fromObject(message)).finish());

  it('parseProtobufClientFrame gives a frame or a catalogued frame error for any bytes', () => {
    fc.assert(
      fc.property(fc.oneof(upstream, fc.uint8Array({ maxLength: 4096 })), (bytes) => {
        const result = withinBudget(() => parseProtobufClientFrame(bytes));
        if (result.ok) {
          expect(['joinGroup', 'leaveGroup', 'sendToGroup', 'event', 'sequenceAck', 'ping']).toContain(
            result.frame.type,
          );
        } else {
          expect([...FRAME_ERRORS, 'invalid-protobuf']).toContain(result.error.code);
          if ('ackId' in result.error)
            expect(Number.isSafeInteger((result.error as { ackId: number }).ackId)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
