import { describe, expect, it } from 'vitest';
import { HubOutboundMessage, readingMessage } from '../../../src/wire/outbound-message.js';
import { parseClientFrame } from '../../../src/wire/webpubsub/parse-client-frame.js';
import { webPubSubJsonCodec, webPubSubSimpleCodec } from '../../../src/wire/webpubsub/message-codec.js';
import { canJoinLeaveGroup, canSendToGroup } from '../../../src/wire/webpubsub/permissions.js';
import { ackFrame, connectedFrame, disconnectedFrame, pongFrame } from '../../../src/wire/webpubsub/server-frame.js';
import { selectSubprotocol } from '../../../src/wire/webpubsub/subprotocol.js';
import { reading } from './harness.js';

describe('parseClientFrame', () => {
  it('parses every client frame the official client sends', () => {
    expect(parseClientFrame('{"type":"joinGroup","group":"g","ackId":1}')).toEqual({
      ok: true,
      frame: { type: 'joinGroup', group: 'g', ackId: 1 },
    });
    expect(parseClientFrame('{"type":"leaveGroup","group":"g"}')).toEqual({
      ok: true,
      frame: { type: 'leaveGroup', group: 'g' },
    });
    expect(
      parseClientFrame('{"type":"sendToGroup","group":"g","ackId":2,"dataType":"text","data":"hi","noEcho":true}'),
    ).toEqual({
      ok: true,
      frame: { type: 'sendToGroup', group: 'g', ackId: 2, dataType: 'text', data: 'hi', noEcho: true },
    });
    expect(
      parseClientFrame('{"type":"event","event":"subscribe","ackId":3,"dataType":"json","data":{"deviceId":"d"}}'),
    ).toEqual({
      ok: true,
      frame: { type: 'event', event: 'subscribe', ackId: 3, dataType: 'json', data: { deviceId: 'd' } },
    });
    expect(parseClientFrame('{"type":"sequenceAck","sequenceId":7}')).toEqual({
      ok: true,
      frame: { type: 'sequenceAck', sequenceId: 7 },
    });
    expect(parseClientFrame('{"type":"ping"}')).toEqual({ ok: true, frame: { type: 'ping' } });
  });

  it('defaults dataType to json and decodes binary from base64', () => {
    const json = parseClientFrame('{"type":"sendToGroup","group":"g","data":[1,2]}');
    expect(json.ok && json.frame.type === 'sendToGroup' && json.frame.dataType).toBe('json');
    const bin = parseClientFrame('{"type":"event","event":"e","dataType":"binary","data":"AQID"}');
    expect(bin.ok && bin.frame.type === 'event' && [...(bin.frame.data as Buffer)]).toEqual([1, 2, 3]);
  });

  it('returns typed errors and never throws', () => {
    const cases: Array<[string, string]> = [
      ['not json', 'invalid-json'],
      ['[1]', 'not-an-object'],
      ['null', 'not-an-object'],
      ['{"group":"g"}', 'missing-type'],
      ['{"type":"invoke"}', 'unknown-type'],
      ['{"type":"joinGroup","group":""}', 'invalid-field'],
      ['{"type":"joinGroup","group":"   "}', 'invalid-field'],
      [`{"type":"joinGroup","group":"${'x'.repeat(1025)}"}`, 'invalid-field'],
      ['{"type":"joinGroup","group":"g","ackId":-1}', 'invalid-field'],
      ['{"type":"joinGroup","group":"g","ackId":1.5}', 'invalid-field'],
      ['{"type":"sendToGroup","group":"g","dataType":"text","data":1}', 'invalid-field'],
      ['{"type":"sendToGroup","group":"g","dataType":"binary","data":"***"}', 'invalid-field'],
      ['{"type":"sendToGroup","group":"g","dataType":"xml","data":"x"}', 'invalid-field'],
      ['{"type":"sendToGroup","group":"g","noEcho":"yes","data":1}', 'invalid-field'],
      ['{"type":"sendToGroup","group":"g"}', 'invalid-field'],
      ['{"type":"event","data":1}', 'invalid-field'],
      ['{"type":"sequenceAck","sequenceId":"1"}', 'invalid-field'],
    ];
    for (const [text, code] of cases) {
      const result = parseClientFrame(text);
      expect(result.ok, text).toBe(false);
      if (!result.ok) expect(result.error.code, text).toBe(code);
    }
  });

  it('keeps a valid ackId on a field error so it can be acked', () => {
    const result = parseClientFrame('{"type":"joinGroup","group":1,"ackId":9}');
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-field', ackId: 9, type: 'joinGroup' } });
  });
});

describe('server frames', () => {
  it('builds the documented system, ack and pong frames', () => {
    expect(JSON.parse(connectedFrame({ connectionId: 'c1', userId: 'u1', reconnectionToken: 't' }))).toEqual({
      type: 'system',
      event: 'connected',
      userId: 'u1',
      connectionId: 'c1',
      reconnectionToken: 't',
    });
    expect(JSON.parse(connectedFrame({ connectionId: 'c1' }))).toEqual({
      type: 'system',
      event: 'connected',
      connectionId: 'c1',
    });
    expect(JSON.parse(disconnectedFrame('bye'))).toEqual({ type: 'system', event: 'disconnected', message: 'bye' });
    expect(JSON.parse(ackFrame(3))).toEqual({ type: 'ack', ackId: 3, success: true });
    expect(JSON.parse(ackFrame(4, { name: 'Forbidden', message: 'no' }))).toEqual({
      type: 'ack',
      ackId: 4,
      success: false,
      error: { name: 'Forbidden', message: 'no' },
    });
    expect(JSON.parse(pongFrame())).toEqual({ type: 'pong' });
  });

  it('encodes a reading as the contract says, without traceparent', () => {
    const r = { ...reading('dev-1', 42), traceparent: '00-abc-def-01' };
    const frame = readingMessage(r).encoded(webPubSubJsonCodec);
    expect(JSON.parse(frame.text)).toEqual({
      type: 'message',
      from: 'group',
      group: 'device:demo:dev-1',
      dataType: 'json',
      data: { tenantId: 'demo', deviceId: 'dev-1', seq: 42, ts: r.ts, receivedAt: r.receivedAt, data: r.data },
    });
    // Even a raw Reading handed to a server message loses its traceparent.
    const server = new HubOutboundMessage({ kind: 'server' }, 'json', r).encoded(webPubSubJsonCodec);
    expect(server.text).not.toContain('traceparent');
  });

  it('splices the sequence id into the prebuilt bytes', () => {
    const frame = new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'hi').encoded(webPubSubJsonCodec);
    const spliced = JSON.parse(frame.withSequenceId(17).toString('utf8'));
    expect(spliced).toEqual({
      sequenceId: 17,
      type: 'message',
      from: 'group',
      group: 'g',
      dataType: 'text',
      data: 'hi',
    });
    expect(frame.bytes).toBe(frame.bytes);
  });

  it('encodes binary as base64 for subprotocol clients and raw for simple ones', () => {
    const message = new HubOutboundMessage({ kind: 'server' }, 'binary', Buffer.from([1, 2, 3]));
    expect(JSON.parse(message.encoded(webPubSubJsonCodec).text)).toEqual({
      type: 'message',
      from: 'server',
      dataType: 'binary',
      data: 'AQID',
    });
    expect(message.encoded(webPubSubSimpleCodec)).toEqual({ payload: Buffer.from([1, 2, 3]), binary: true });
  });
});

describe('subprotocol and permissions', () => {
  it('selects by the client preference and refuses unknown-only offers', () => {
    expect(selectSubprotocol([])).toEqual({ ok: true, kind: 'simple', subprotocol: undefined });
    expect(selectSubprotocol(['x', 'json.webpubsub.azure.v1'])).toMatchObject({ ok: true, kind: 'json' });
    expect(selectSubprotocol(['json.reliable.webpubsub.azure.v1', 'json.webpubsub.azure.v1'])).toMatchObject({
      kind: 'reliable',
    });
    expect(selectSubprotocol(['protobuf.webpubsub.azure.v1'])).toEqual({
      ok: true,
      kind: 'protobuf',
      subprotocol: 'protobuf.webpubsub.azure.v1',
    });
    expect(
      selectSubprotocol(['mqtt', 'protobuf.reliable.webpubsub.azure.v1', 'json.webpubsub.azure.v1']),
    ).toMatchObject({ kind: 'reliable-protobuf' });
    expect(selectSubprotocol(['mqtt'])).toEqual({ ok: false, offered: ['mqtt'] });
  });

  it('lets a token follow its own tenant devices, and other groups only with a role', () => {
    const own = { roles: [], tenantId: 'demo' };
    expect(canJoinLeaveGroup(own, 'device:demo:dev-1')).toBe(true);
    expect(canJoinLeaveGroup(own, 'device:other:dev-1')).toBe(false);
    expect(canJoinLeaveGroup(own, 'chat')).toBe(false);
    expect(
      canJoinLeaveGroup(
        { roles: ['webpubsub.joinLeaveGroup.device:other:dev-1'], tenantId: 'demo' },
        'device:other:dev-1',
      ),
    ).toBe(true);
    expect(canJoinLeaveGroup({ roles: ['webpubsub.joinLeaveGroup'], tenantId: undefined }, 'anything')).toBe(true);
    expect(canSendToGroup(own, 'device:demo:dev-1')).toBe(false);
    expect(canSendToGroup({ roles: ['webpubsub.sendToGroup.chat'], tenantId: undefined }, 'chat')).toBe(true);
  });
});
