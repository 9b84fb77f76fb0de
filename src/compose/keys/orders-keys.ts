import type { KeyDefinition } from '../../host/config/key-definition.js';
import type { ResolvedConfig } from '../../host/config/load-config.js';
import * as p from '../../host/config/parsers.js';

/** The business API's keys: the queue, the outbox relay, the worker and the profile's preconditions. */
export const ORDERS_KEYS: readonly KeyDefinition[] = [
  // Set → RabbitMQ; unset → the in-process queue (one process; messages end with it).
  {
    key: 'ConnectionStrings:rabbitmq',
    doc: 'e.g. `amqp://guest:guest@127.0.0.1:5672`; the queue of accepted order changes (see Orders and profile (docs/http-api.md))',
    defaultDoc: 'unset → the in-process queue',
    parse: p.url(['amqp', 'amqps']),
    secret: true,
  },
  // the work queue; its dead-letter queue is {name}.dead
  {
    key: 'Queue:Name',
    doc: 'the work queue (a RabbitMQ quorum queue); its dead-letter queue is `{name}.dead`',
    parse: p.str({ pattern: /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,200}$/ }),
    default: () => 'telemetry-hub.orders',
  },
  // deliveries a worker holds unacknowledged at once
  {
    key: 'Queue:Prefetch',
    doc: 'deliveries a worker holds unacknowledged at once',
    parse: p.int(1, 10_000),
    default: () => 16,
  },
  // deliveries of one message before it goes to the dead-letter queue
  {
    key: 'Queue:MaxAttempts',
    doc: 'deliveries of one message before it is dead-lettered',
    parse: p.int(1, 100),
    default: () => 5,
  },
  // run the worker inside this process (npm run worker runs it alone)
  {
    key: 'Worker:Enabled',
    doc: 'run the worker inside the hub (`npm run worker` runs it alone)',
    parse: p.bool,
    default: () => true,
  },
  // publish the outbox from this process
  { key: 'Outbox:Relay', doc: 'publish the outbox from this process', parse: p.bool, default: () => true },
  // seconds between looks at the outbox when nothing kicked the relay (rows a crashed process left)
  {
    key: 'Outbox:PollSeconds',
    doc: 'how often the relay looks without being woken (rows a crashed process left)',
    parse: p.num(0.05, 3600),
    default: () => 1,
  },
  // a profile PUT or apply without If-Match is refused with 428
  {
    key: 'Profile:RequireIfMatch',
    doc: 'a profile `PUT` or apply without `If-Match` gets 428',
    parse: p.bool,
    default: () => false,
  },
];

export interface OrdersConfig {
  readonly rabbitMqUrl: string | undefined;
  readonly queueName: string;
  readonly prefetch: number;
  readonly maxAttempts: number;
  readonly workerEnabled: boolean;
  readonly relayEnabled: boolean;
  readonly outboxPollMs: number;
  readonly requireIfMatch: boolean;
}

export function toOrdersConfig(resolved: ResolvedConfig): OrdersConfig {
  const v = <T>(key: string) => resolved.values.get(key) as T;
  return {
    rabbitMqUrl: v('ConnectionStrings:rabbitmq'),
    queueName: v('Queue:Name'),
    prefetch: v('Queue:Prefetch'),
    maxAttempts: v('Queue:MaxAttempts'),
    workerEnabled: v('Worker:Enabled'),
    relayEnabled: v('Outbox:Relay'),
    outboxPollMs: Math.round(v<number>('Outbox:PollSeconds') * 1000),
    requireIfMatch: v('Profile:RequireIfMatch'),
  };
}
