import protobuf from 'protobufjs';

/**
 * The client protocol of `protobuf.webpubsub.azure.v1` and `protobuf.reliable.webpubsub.azure.v1`,
 * as the service publishes it (Azure Web PubSub reference, "The Azure Web PubSub-supported
 * protobuf WebSocket subprotocol" and its reliable counterpart). The two published documents
 * differ only in the reliable fields, so this is their union: the reliable subprotocol adds
 * `DataMessage.sequence_id` (4) and `ConnectedMessage.reconnection_token` (3), which the plain one
 * never sets. Field numbers are the service's; names and nesting are kept so that a client
 * generated from the published text reads and writes the same bytes.
 *
 * One addition from the service's own client SDKs (the JavaScript and .NET protobuf clients
 * generate from a client.proto with it): `MessageData.json_data` (4), in which they send JSON.
 * The hub accepts it upstream as dataType json; downstream it sends JSON as `text_data`, as the
 * reference says (those SDKs read both).
 *
 * Left out, because this hub does not speak them: the streaming messages (upstream
 * `stream_data_message` = 13, `stream_end_message` = 14 and the `stream` fields; downstream
 * `stream_ack_message` = 6, `stream_nack_message` = 7, `stream_closed_message` = 8 and
 * `DataMessage.stream` = 6). A frame using only those decodes to no known request and is
 * ignored, like an unknown frame type of the JSON subprotocols.
 */
export const CLIENT_PROTO = `
syntax = "proto3";

import "google/protobuf/any.proto";

message UpstreamMessage {
    oneof message {
        SendToGroupMessage send_to_group_message = 1;
        EventMessage event_message = 5;
        JoinGroupMessage join_group_message = 6;
        LeaveGroupMessage leave_group_message = 7;
        SequenceAckMessage sequence_ack_message = 8;
        PingMessage ping_message = 9;
    }

    message SendToGroupMessage {
        string group = 1;
        optional uint64 ack_id = 2;
        MessageData data = 3;
        optional bool no_echo = 4;
    }

    message EventMessage {
        string event = 1;
        MessageData data = 2;
        optional uint64 ack_id = 3;
    }

    message JoinGroupMessage {
        string group = 1;
        optional uint64 ack_id = 2;
    }

    message LeaveGroupMessage {
        string group = 1;
        optional uint64 ack_id = 2;
    }

    message SequenceAckMessage {
        uint64 sequence_id = 1;
    }

    message PingMessage {
    }
}

message MessageData {
    oneof data {
        string text_data = 1;
        bytes binary_data = 2;
        google.protobuf.Any protobuf_data = 3;
        string json_data = 4;
    }
}

message DownstreamMessage {
    oneof message {
        AckMessage ack_message = 1;
        DataMessage data_message = 2;
        SystemMessage system_message = 3;
        PongMessage pong_message = 4;
    }

    message AckMessage {
        uint64 ack_id = 1;
        bool success = 2;
        optional ErrorMessage error = 3;

        message ErrorMessage {
            string name = 1;
            string message = 2;
        }
    }

    message DataMessage {
        string from = 1;
        optional string group = 2;
        MessageData data = 3;
        uint64 sequence_id = 4;
    }

    message SystemMessage {
        oneof message {
            ConnectedMessage connected_message = 1;
            DisconnectedMessage disconnected_message = 2;
        }

        message ConnectedMessage {
            string connection_id = 1;
            string user_id = 2;
            string reconnection_token = 3;
        }

        message DisconnectedMessage {
            string reason = 2;
        }
    }

    message PongMessage {
    }
}
`;

/** The parsed definitions, with google.protobuf.Any from protobufjs's bundled well-known types. */
export const clientProtoRoot: protobuf.Root = loadRoot();

export const UpstreamMessage = clientProtoRoot.lookupType('UpstreamMessage');
export const DownstreamMessage = clientProtoRoot.lookupType('DownstreamMessage');
export const DataMessage = clientProtoRoot.lookupType('DownstreamMessage.DataMessage');
export const MessageData = clientProtoRoot.lookupType('MessageData');
export const AnyMessage = clientProtoRoot.lookupType('google.protobuf.Any');

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  const any = protobuf.common.get('google/protobuf/any.proto');
  if (any === null) throw new Error('protobufjs lacks google/protobuf/any.proto');
  root.addJSON(any.nested as Record<string, protobuf.AnyNestedObject>);
  protobuf.parse(CLIENT_PROTO, root);
  root.resolveAll();
  return root;
}
