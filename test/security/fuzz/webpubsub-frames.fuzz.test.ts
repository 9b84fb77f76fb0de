import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseClientFrame } from '../../../src/protocol/webpubsub/parse-client-frame.js';
import { hostileText, RUNS, withinBudget } from './fuzz-support.js';

const FRAME_ERRORS = ['invalid-json', 'not-an-object', 'missing-type', 'unknown-type', 'invalid-field'];

/**
 * Issue 12 item 9: client frames of the Web PubSub subprotocols. The JSON subprotocols are covered
 * here. TODO(protobuf subprotocol): when the protobuf client-frame parser is merged, add its
 * property in this file: arbitrary bytes (`fc.uint8Array`) and well-formed frames with fields of
 * any value give a frame or that parser's documented error, within BUDGET_MS.
 */
describe('fuzz: Web PubSub JSON client frames', () => {
  /** Frames of the known types with fields of any JSON type: what a buggy or hostile client sends. */
  const frameLike = fc
    .record(
      {
        type: fc.oneof(fc.constantFrom('joinGroup', 'leaveGroup', 'sendToGroup', 'event', 'sequenceAck', 'ping', '', 'JOINGROUP'), fc.jsonValue()),
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
          expect(['joinGroup', 'leaveGroup', 'sendToGroup', 'event', 'sequenceAck', 'ping']).toContain(result.frame.type);
        } else {
          expect(FRAME_ERRORS).toContain(result.error.code);
          if ('ackId' in result.error) expect(Number.isSafeInteger((result.error as { ackId: number }).ackId)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
