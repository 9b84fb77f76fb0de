import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBackplaneWire, encodeBackplaneWire, type BackplaneWire } from '../../src/wire/backplane-codec.js';
import { envelope } from './envelope-arbitrary.js';

describe('backplane codec', () => {
  it('round-trips any envelope exactly: arbitrary JSON, text and bytes', () => {
    fc.assert(
      fc.property(fc.uuid(), envelope, (node, env) => {
        const decoded = decodeBackplaneWire(encodeBackplaneWire({ node, envelope: env }));
        expect(decoded.node).toBe(node);
        // toEqual tells -0 from 0 and a Buffer from anything else; an absent conflationKey is undefined.
        expect(decoded.envelope).toEqual(env);
        if (env.message.dataType === 'binary' || env.message.dataType === 'protobuf')
          expect(Buffer.isBuffer(decoded.envelope.message.data)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('carries user data that looks like an encoding of bytes as the JSON it is', () => {
    for (const data of [{ $b64: 'aGk=' }, { type: 'Buffer', data: [104, 105] }, [{ $b64: '' }], '$b64']) {
      const wire: BackplaneWire = {
        node: 'n',
        envelope: {
          kind: 'all',
          message: { source: { kind: 'server' }, dataType: 'json', data, conflationKey: undefined },
        },
      };
      expect(decodeBackplaneWire(encodeBackplaneWire(wire)).envelope.message.data).toEqual(data);
    }
  });

  it('accepts bytes as any Uint8Array and delivers a Buffer', () => {
    const bytes = new Uint8Array([9, 8, 7, 6]).subarray(1, 3);
    const wire: BackplaneWire = {
      node: 'n',
      envelope: {
        kind: 'group',
        group: 'g',
        message: { source: { kind: 'group', group: 'g' }, dataType: 'binary', data: bytes, conflationKey: undefined },
      },
    };
    expect(decodeBackplaneWire(encodeBackplaneWire(wire)).envelope.message.data).toEqual(Buffer.from([8, 7]));
  });

  it('refuses text that is not a backplane message', () => {
    for (const text of ['', 'null', '{}', '{"node":"n"}', '[1]']) expect(() => decodeBackplaneWire(text)).toThrow();
  });
});
