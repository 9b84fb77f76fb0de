/**
 * A test-only AMQP 1.0 peer that the real `@azure/event-hubs` client talks to, NOT an emulator: one hub,
 * in-memory partitions, no auth checks, no persistence. It answers just what the SDK needs:
 * - SASL ANONYMOUS/PLAIN (the SDK sends ANONYMOUS with the key name as user),
 * - `$cbs` put-token (always 200) and `$management` READ for the hub and its partitions,
 * - receiver links `{hub}/ConsumerGroups/{cg}/Partitions/{id}` from the selector filter on, with the
 *   service's epoch rules (partition-readers.ts),
 * - sender links to `{hub}` (partition by key hash, else round robin) or `{hub}/Partitions/{id}`.
 * The SDK picks plain TCP (no TLS) and the endpoint's port when the connection string has
 * `UseDevelopmentEmulator=true` (core-amqp ConnectionContextBase).
 */
import type { AddressInfo, Server, Socket } from 'node:net';
import rhea, { type EventContext, type Message, type Receiver } from 'rhea';
import { unpackTransfer } from './batch-envelope.js';
import { acceptAttach, refuse, sourceOf, targetAddressOf } from './link-attach.js';
import { partitionForKey } from './partition-key-hash.js';
import { PartitionLog } from './partition-log.js';
import { PartitionReaders, type ReaderInfo } from './partition-readers.js';
import { answerRequest, type HubInfo } from './request-response.js';
import { parseSelectorFilter, selectorText, type StartPosition } from './selector-filter.js';
import { tolerateLateFrames } from './tolerate-late-frames.js';

export interface PeerOptions {
  hubName: string;
  partitionCount: number;
}

/** Extra parts of an injected event, e.g. IoT Hub's `iothub-connection-device-id` annotation. */
export interface InjectProps {
  properties?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  partitionKey?: string;
}

export interface EventHubsPeer {
  readonly port: number;
  /** Connection string for the SDK, entity path included. */
  readonly connectionString: string;
  /** Events received from producers so far. */
  readonly sentCount: number;
  /** AMQP transfers received from producers so far; a batch of events is one transfer. */
  readonly transferCount: number;
  /** Appends an event as if a producer sent it; a Uint8Array body becomes a data section, anything else an AMQP value. */
  injectEvent(partitionId: string, body: unknown, props?: InjectProps): void;
  /** The partition this peer assigns to a partition key. */
  partitionFor(partitionKey: string): string;
  /** Receiver links open right now, e.g. to see that a partition has exactly one reader. */
  openReceivers(): ReaderInfo[];
  close(): Promise<void>;
}

const MAX_MESSAGE_SIZE = 1024 * 1024;
const EARLIEST: StartPosition = { field: 'offset', inclusive: false, value: '-1' };
const isNode = (address: string): address is '$cbs' | '$management' => address === '$cbs' || address === '$management';

export async function start({ hubName, partitionCount }: PeerOptions): Promise<EventHubsPeer> {
  const hub: HubInfo = {
    name: hubName,
    createdAt: new Date(),
    partitions: Array.from({ length: partitionCount }, (_, i) => new PartitionLog(String(i))),
  };
  const partition = (id: string | undefined): PartitionLog | undefined => hub.partitions.find((p) => p.id === id);
  const readers = new PartitionReaders();
  /** Producer links, with the partition they are bound to, if any. */
  const producers = new Map<Receiver, PartitionLog | undefined>();
  const sockets = new Set<Socket>();
  let sentCount = 0;
  let transferCount = 0;
  let roundRobin = 0;

  const receiverAddress = new RegExp(`^${escapeRegExp(hubName)}/ConsumerGroups/([^/]+)/Partitions/([^/]+)$`, 'i');
  const senderAddress = new RegExp(`^${escapeRegExp(hubName)}(?:/Partitions/([^/]+))?$`, 'i');

  const container = rhea.create_container({ id: `eventhubs-peer-${hubName}` });
  container.sasl_server_mechanisms.enable_anonymous();
  container.sasl_server_mechanisms.enable_plain(() => true);
  container.on('connection_open', (context: EventContext) => tolerateLateFrames(context.connection));

  // A client receiver is a sender here: a request-response reply link or a partition reader.
  container.on('sender_open', (context: EventContext) => {
    const sender = context.sender!;
    const { address, filter } = sourceOf(sender);
    acceptAttach(sender, MAX_MESSAGE_SIZE);
    if (isNode(address)) return;
    const match = receiverAddress.exec(address);
    const log = partition(match?.[2]);
    if (!match || !log) return refuse(sender, 'amqp:not-found', `no partition at ${address}`);
    const text = selectorText(filter);
    const position = text === undefined ? EARLIEST : parseSelectorFilter(text);
    if (!position) return refuse(sender, 'amqp:not-implemented', `unsupported selector ${text}`);
    readers.open(sender, log, match[1]!, position);
  });

  // A client sender is a receiver here: a request-response request link or a producer.
  container.on('receiver_open', (context: EventContext) => {
    const receiver = context.receiver!;
    const address = targetAddressOf(receiver);
    acceptAttach(receiver, MAX_MESSAGE_SIZE);
    if (isNode(address)) return;
    const match = senderAddress.exec(address);
    const bound = partition(match?.[1]);
    if (!match || (match[1] !== undefined && !bound))
      return refuse(receiver, 'amqp:not-found', `no entity at ${address}`);
    producers.set(receiver, bound);
  });

  container.on('message', (context: EventContext) => {
    const receiver = context.receiver!;
    const address = targetAddressOf(receiver);
    if (isNode(address)) return answerRequest(context.connection, address, context.message!, hub);
    if (!producers.has(receiver)) return;
    const bound = producers.get(receiver);
    const format = (context as { format?: number }).format ?? context.delivery?.format;
    transferCount++;
    for (const { message, size } of unpackTransfer(context.message as Message | Buffer, format)) {
      const key = message.message_annotations?.['x-opt-partition-key'] as string | undefined;
      const index = key === undefined ? roundRobin++ % partitionCount : partitionForKey(key, partitionCount);
      (bound ?? hub.partitions[index]!).append(message, key, size);
      sentCount++;
    }
  });

  container.on('sendable', (context: EventContext) => readers.onCredit(context.sender!));
  container.on('sender_close', (context: EventContext) => readers.forget(context.sender));
  container.on('receiver_close', (context: EventContext) => producers.delete(context.receiver!));
  const dropConnection = (context: EventContext): void => {
    readers.forgetConnection(context.connection);
    for (const link of [...producers.keys()]) if (link.connection === context.connection) producers.delete(link);
  };
  container.on('disconnected', dropConnection);
  container.on('connection_close', dropConnection);
  // Without a listener rhea rethrows link and connection errors; a test peer only needs to survive them.
  container.on('error', () => {});

  const server = container.listen({ port: 0, host: '127.0.0.1' }) as unknown as Server;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    connectionString:
      `Endpoint=sb://127.0.0.1:${port};SharedAccessKeyName=k;SharedAccessKey=secret;` +
      `EntityPath=${hubName};UseDevelopmentEmulator=true`,
    get sentCount() {
      return sentCount;
    },
    get transferCount() {
      return transferCount;
    },
    injectEvent(partitionId, body, props = {}) {
      const log = partition(partitionId);
      if (!log) throw new Error(`no partition ${partitionId}`);
      const annotations: Record<string, unknown> = { ...props.annotations };
      if (props.partitionKey !== undefined) annotations['x-opt-partition-key'] = props.partitionKey;
      const bytes = body instanceof Uint8Array;
      const message: Message = {
        body: bytes ? rhea.message.data_section(Buffer.from(body)) : body,
        application_properties: props.properties,
        message_annotations: annotations,
      };
      log.append(message, props.partitionKey, bytes ? body.length : 1);
    },
    partitionFor(partitionKey) {
      return String(partitionForKey(partitionKey, partitionCount));
    },
    openReceivers() {
      return readers.list();
    },
    async close() {
      readers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
