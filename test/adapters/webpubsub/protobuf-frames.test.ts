import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { HubOutboundMessage } from '../../../src/wire/outbound-message.js';
import { webPubSubJsonCodec, webPubSubSimpleCodec } from '../../../src/wire/webpubsub/message-codec.js';
import { parseProtobufClientFrame } from '../../../src/wire/webpubsub/parse-protobuf-client-frame.js';
import { webPubSubProtobufCodec } from '../../../src/wire/webpubsub/protobuf-message-codec.js';
import { AnyMessage, clientProtoRoot, DownstreamMessage } from '../../../src/wire/webpubsub/protobuf-schema.js';
import { encodeUpstream } from './protobuf-client.js';

describe('the client protocol definitions', () => {
  // Field numbers as the service publishes them (reference pages of both protobuf subprotocols).
  const expected: Array<[string, string, number, string]> = [
    ['UpstreamMessage', 'send_to_group_message', 1, 'UpstreamMessage.SendToGroupMessage'],
    ['UpstreamMessage', 'event_message', 5, 'UpstreamMessage.EventMessage'],
    ['UpstreamMessage', 'join_group_message', 6, 'UpstreamMessage.JoinGroupMessage'],
    ['UpstreamMessage', 'leave_group_message', 7, 'UpstreamMessage.LeaveGroupMessage'],
    ['UpstreamMessage', 'sequence_ack_message', 8, 'UpstreamMessage.SequenceAckMessage'],
    ['UpstreamMessage', 'ping_message', 9, 'UpstreamMessage.PingMessage'],
    ['UpstreamMessage.SendToGroupMessage', 'group', 1, 'string'],
    ['UpstreamMessage.SendToGroupMessage', 'ack_id', 2, 'uint64'],
    ['UpstreamMessage.SendToGroupMessage', 'data', 3, 'MessageData'],
    ['UpstreamMessage.SendToGroupMessage', 'no_echo', 4, 'bool'],
    ['UpstreamMessage.EventMessage', 'event', 1, 'string'],
    ['UpstreamMessage.EventMessage', 'data', 2, 'MessageData'],
    ['UpstreamMessage.EventMessage', 'ack_id', 3, 'uint64'],
    ['UpstreamMessage.JoinGroupMessage', 'ack_id', 2, 'uint64'],
    ['UpstreamMessage.LeaveGroupMessage', 'ack_id', 2, 'uint64'],
    ['UpstreamMessage.SequenceAckMessage', 'sequence_id', 1, 'uint64'],
    ['MessageData', 'text_data', 1, 'string'],
    ['MessageData', 'binary_data', 2, 'bytes'],
    ['MessageData', 'protobuf_data', 3, 'google.protobuf.Any'],
    // Not on the reference pages; in the client.proto of the service's JavaScript and .NET SDKs.
    ['MessageData', 'json_data', 4, 'string'],
    ['DownstreamMessage', 'ack_message', 1, 'DownstreamMessage.AckMessage'],
    ['DownstreamMessage', 'data_message', 2, 'DownstreamMessage.DataMessage'],
    ['DownstreamMessage', 'system_message', 3, 'DownstreamMessage.SystemMessage'],
    ['DownstreamMessage', 'pong_message', 4, 'DownstreamMessage.PongMessage'],
    ['DownstreamMessage.AckMessage', 'ack_id', 1, 'uint64'],
    ['DownstreamMessage.AckMessage', 'success', 2, 'bool'],
    ['DownstreamMessage.AckMessage', 'error', 3, 'DownstreamMessage.AckMessage.ErrorMessage'],
    ['DownstreamMessage.DataMessage', 'from', 1, 'string'],
    ['DownstreamMessage.DataMessage', 'group', 2, 'string'],
    ['DownstreamMessage.DataMessage', 'data', 3, 'MessageData'],
    ['DownstreamMessage.DataMessage', 'sequence_id', 4, 'uint64'],
    ['DownstreamMessage.SystemMessage', 'connected_message', 1, 'DownstreamMessage.SystemMessage.ConnectedMessage'],
    [
      'DownstreamMessage.SystemMessage',
      'disconnected_message',
      2,
      'DownstreamMessage.SystemMessage.DisconnectedMessage',
    ],
    ['DownstreamMessage.SystemMessage.ConnectedMessage', 'connection_id', 1, 'string'],
    ['DownstreamMessage.SystemMessage.ConnectedMessage', 'user_id', 2, 'string'],
    ['DownstreamMessage.SystemMessage.ConnectedMessage', 'reconnection_token', 3, 'string'],
    ['DownstreamMessage.SystemMessage.DisconnectedMessage', 'reason', 2, 'string'],
  ];
  for (const [owner, name, id, type] of expected) {
    it(`${owner}.${name} = ${id}`, () => {
      const field = clientProtoRoot.lookupType(owner).fields[protobuf.util.camelCase(name)]!;
      expect(field.id).toBe(id);
      expect(field.resolvedType?.fullName.slice(1) ?? field.type).toBe(type);
    });
  }
});

describe('parseProtobufClientFrame', () => {
  it('parses every request the hub speaks', () => {
    expect(parseProtobufClientFrame(encodeUpstream({ joinGroupMessage: { group: 'g', ackId: 1 } }))).toEqual({
      ok: true,
      frame: { type: 'joinGroup', group: 'g', ackId: 1 },
    });
    expect(parseProtobufClientFrame(encodeUpstream({ leaveGroupMessage: { group: 'g' } }))).toEqual({
      ok: true,
      frame: { type: 'leaveGroup', group: 'g' },
    });
    expect(
      parseProtobufClientFrame(
        encodeUpstream({ sendToGroupMessage: { group: 'g', data: { textData: 'hi' }, noEcho: true, ackId: 0 } }),
      ),
    ).toEqual({
      ok: true,
      frame: { type: 'sendToGroup', group: 'g', noEcho: true, dataType: 'text', data: 'hi', ackId: 0 },
    });
    expect(
      parseProtobufClientFrame(
        encodeUpstream({ eventMessage: { event: 'e', data: { binaryData: Buffer.from([1]) } } }),
      ),
    ).toEqual({
      ok: true,
      frame: { type: 'event', event: 'e', dataType: 'binary', data: Buffer.from([1]) },
    });
    const any = { type_url: 'type.googleapis.com/x.Y', value: Buffer.from([8, 1]) };
    expect(
      parseProtobufClientFrame(encodeUpstream({ sendToGroupMessage: { group: 'g', data: { protobufData: any } } })),
    ).toEqual({
      ok: true,
      frame: {
        type: 'sendToGroup',
        group: 'g',
        noEcho: false,
        dataType: 'protobuf',
        data: Buffer.from(AnyMessage.encode(any).finish()),
      },
    });
    expect(
      parseProtobufClientFrame(
        encodeUpstream({ eventMessage: { event: 'subscribe', data: { jsonData: '{"deviceId":"d"}' }, ackId: 3 } }),
      ),
    ).toEqual({
      ok: true,
      frame: { type: 'event', event: 'subscribe', dataType: 'json', data: { deviceId: 'd' }, ackId: 3 },
    });
    expect(
      parseProtobufClientFrame(encodeUpstream({ sequenceAckMessage: { sequenceId: 9_007_199_254_740_991 } })),
    ).toEqual({
      ok: true,
      frame: { type: 'sequenceAck', sequenceId: 9_007_199_254_740_991 },
    });
    expect(parseProtobufClientFrame(encodeUpstream({ pingMessage: {} }))).toEqual({
      ok: true,
      frame: { type: 'ping' },
    });
  });

  it('answers every malformed input with a catalogued error, never a throw', () => {
    const code = (bytes: Uint8Array) => {
      const result = parseProtobufClientFrame(bytes);
      return result.ok ? 'ok' : result.error.code;
    };
    expect(code(new Uint8Array(0))).toBe('missing-type');
    expect(code(Buffer.from([0x32, 0x10, 0x0a]))).toBe('invalid-protobuf'); // length past the end
    expect(code(Buffer.from([0x32, 0x03, 0x0a, 0x01, 0xff]))).toBe('invalid-protobuf'); // invalid UTF-8
    expect(code(Buffer.from([0x07]))).toBe('invalid-protobuf'); // field number 0
    expect(code(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).toBe(
      'invalid-protobuf',
    );
    expect(code(Buffer.from([0x6a, 0x00]))).toBe('unknown-type'); // field 13 (streaming) only
    expect(code(encodeUpstream({ joinGroupMessage: { group: ' ' } }))).toBe('invalid-field');
    expect(code(encodeUpstream({ eventMessage: { event: '', data: { textData: 'x' } } }))).toBe('invalid-field');
    expect(code(encodeUpstream({ eventMessage: { event: 'e' } }))).toBe('invalid-field');
    expect(code(encodeUpstream({ sendToGroupMessage: { group: 'g', data: {} } }))).toBe('invalid-field');
    expect(code(encodeUpstream({ sendToGroupMessage: { group: 'g', data: { jsonData: '{' } } }))).toBe('invalid-field');
    expect(code(encodeUpstream({ sequenceAckMessage: { sequenceId: '18446744073709551615' } }))).toBe('invalid-field');
  });

  it('keeps a usable ackId on an invalid field so it can be acked, and drops an unsafe one', () => {
    expect(parseProtobufClientFrame(encodeUpstream({ joinGroupMessage: { group: '', ackId: 4 } }))).toEqual({
      ok: false,
      error: {
        code: 'invalid-field',
        type: 'joinGroup',
        ackId: 4,
        message: '"group" must be a group name of 1–1024 characters.',
      },
    });
    const unsafe = parseProtobufClientFrame(
      encodeUpstream({ joinGroupMessage: { group: 'g', ackId: '9007199254740993' } }),
    );
    expect(unsafe).toEqual({
      ok: false,
      error: { code: 'invalid-field', type: 'joinGroup', message: '"ack_id" must be at most 2^53 - 1.' },
    });
  });
});

describe('the protobuf message codec', () => {
  const decode = (bytes: Uint8Array) => DownstreamMessage.toObject(DownstreamMessage.decode(bytes), { longs: Number });

  it('maps each dataType to MessageData as the service does', () => {
    const any = Buffer.from(
      AnyMessage.encode({ type_url: 'type.googleapis.com/x.Y', value: Buffer.from([8, 1]) }).finish(),
    );
    const cases: Array<[HubOutboundMessage, object]> = [
      [new HubOutboundMessage({ kind: 'group', group: 'g' }, 'json', { a: 1 }), { textData: '{"a":1}' }],
      [new HubOutboundMessage({ kind: 'server' }, 'text', 'hi'), { textData: 'hi' }],
      [new HubOutboundMessage({ kind: 'server' }, 'binary', Buffer.from([1, 2])), { binaryData: Buffer.from([1, 2]) }],
      [
        new HubOutboundMessage({ kind: 'server' }, 'protobuf', any),
        { protobufData: { type_url: 'type.googleapis.com/x.Y', value: Buffer.from([8, 1]) } },
      ],
    ];
    for (const [message, data] of cases) {
      expect(decode(message.encoded(webPubSubProtobufCodec).bytes).dataMessage.data).toEqual(data);
    }
    expect(decode(cases[0]![0].encoded(webPubSubProtobufCodec).bytes).dataMessage).toMatchObject({
      from: 'group',
      group: 'g',
    });
    // The JSON and simple forms of protobuf data: base64 and the raw Any bytes.
    const pb = cases[3]![0];
    expect(JSON.parse(pb.encoded(webPubSubJsonCodec).text)).toEqual({
      type: 'message',
      from: 'server',
      dataType: 'protobuf',
      data: any.toString('base64'),
    });
    expect(pb.encoded(webPubSubSimpleCodec)).toEqual({ payload: any, binary: true });
  });

  it('builds the body once and appends the sequence id per connection, byte for byte the full encoding', () => {
    const frame = new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'hi').encoded(webPubSubProtobufCodec);
    expect(frame.bytes).toBe(frame.bytes);
    for (const sequenceId of [1, 127, 128, 300, 2 ** 40]) {
      const spliced = frame.withSequenceId(sequenceId);
      const whole = DownstreamMessage.encode({
        dataMessage: { from: 'group', group: 'g', data: { textData: 'hi' }, sequenceId },
      }).finish();
      expect(spliced.equals(Buffer.from(whole))).toBe(true);
      expect(decode(spliced).dataMessage.sequenceId).toBe(sequenceId);
    }
  });
});
