import fc from 'fast-check';
import type { BackplaneEnvelope, MessageData } from '../../src/wire/backplane-codec.js';

const source = fc.oneof(
  fc.record({ kind: fc.constant('group' as const), group: fc.string({ minLength: 1 }) }),
  fc.constant({ kind: 'server' as const }),
);
const common = {
  source,
  conflationKey: fc.option(fc.string(), { nil: undefined }),
  kind: fc.constantFrom('reading' as const, 'message' as const),
};
/**
 * JSON values as they arrive from JSON text. The one value JSON text cannot carry is -0 (it
 * serializes as 0, so every client sees 0 either way): it is normalized here.
 */
const jsonValue = () => fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
/** Any JSON, with a bias for values that look like an encoding of bytes (what a reviver could mistake). */
const json = fc.oneof(
  jsonValue(),
  fc.record({ $b64: fc.base64String() }),
  fc.record({ type: fc.constant('Buffer'), data: fc.array(fc.nat(255)) }),
  fc.dictionary(fc.constantFrom('$b64', 'type', 'data', '__proto__'), jsonValue()),
);
/** Any message the hub can send: arbitrary JSON, text, or bytes (binary, or an encoded protobuf `Any`). */
const message: fc.Arbitrary<MessageData> = fc.oneof(
  fc.record({ ...common, dataType: fc.constant('json' as const), data: json }),
  fc.record({ ...common, dataType: fc.constant('text' as const), data: fc.string({ unit: 'grapheme' }) }),
  fc.record({
    ...common,
    dataType: fc.constantFrom('binary' as const, 'protobuf' as const),
    data: fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
  }),
);
/** Any envelope a hub can publish. */
export const envelope: fc.Arbitrary<BackplaneEnvelope> = fc.oneof(
  fc.record({ kind: fc.constant('group' as const), group: fc.string({ minLength: 1 }), message }),
  fc.record({ kind: fc.constant('all' as const), message }),
  fc.record({ kind: fc.constant('user' as const), userId: fc.string(), message }),
  fc.record({ kind: fc.constant('connection' as const), connectionId: fc.string(), message }),
);
