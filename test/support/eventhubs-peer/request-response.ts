import rhea, { type Connection, type Message, type Sender } from 'rhea';
import type { PartitionLog } from './partition-log.js';

/** What the `$management` node knows about the hub. */
export interface HubInfo {
  name: string;
  createdAt: Date;
  partitions: PartitionLog[];
}

/**
 * Answers one request on the `$cbs` or `$management` node. Replies go to the client's receiver link whose
 * name is the request's `reply_to` (core-amqp's RequestResponseLink names that link after it), correlated
 * by `message_id`.
 */
export function answerRequest(
  connection: Connection,
  node: '$cbs' | '$management',
  request: Message,
  hub: HubInfo,
): void {
  const replyTo = request.reply_to;
  const link = connection.find_sender((s: Sender) => s.name === replyTo) as Sender | undefined;
  if (!link) return;
  const props = (request.application_properties ?? {}) as Record<string, unknown>;
  const reply = node === '$cbs' ? putToken(props) : read(props, hub);
  link.send({
    correlation_id: request.message_id,
    application_properties: { 'status-code': reply.status, 'status-description': reply.description },
    body: reply.body,
  });
}

interface Reply {
  status: number;
  description: string;
  body?: unknown;
}

/** Any token is accepted: this peer tests the client's flow, not its signatures. */
function putToken(props: Record<string, unknown>): Reply {
  return props.operation === 'put-token' ? { status: 200, description: 'OK' } : unknown(props);
}

function read(props: Record<string, unknown>, hub: HubInfo): Reply {
  if (props.operation !== 'READ') return unknown(props);
  if (props.name !== hub.name) return { status: 404, description: `hub ${String(props.name)} not found` };
  if (props.type === 'com.microsoft:eventhub') {
    return {
      status: 200,
      description: 'OK',
      body: {
        name: hub.name,
        created_at: hub.createdAt,
        partition_count: hub.partitions.length,
        partition_ids: hub.partitions.map((p) => p.id),
      },
    };
  }
  if (props.type === 'com.microsoft:partition') {
    const partition = hub.partitions.find((p) => p.id === String(props.partition));
    if (!partition) return { status: 404, description: `partition ${String(props.partition)} not found` };
    const last = partition.lastEvent;
    return {
      status: 200,
      description: 'OK',
      body: {
        name: hub.name,
        partition: partition.id,
        begin_sequence_number: rhea.types.wrap_long(0),
        last_enqueued_sequence_number: rhea.types.wrap_long(last?.sequenceNumber ?? -1),
        last_enqueued_offset: String(last?.offset ?? -1),
        last_enqueued_time_utc: new Date(last?.enqueuedTime ?? 0),
        is_partition_empty: !last,
      },
    };
  }
  return unknown(props);
}

function unknown(props: Record<string, unknown>): Reply {
  return { status: 400, description: `unsupported ${String(props.operation)} ${String(props.type ?? '')}` };
}
