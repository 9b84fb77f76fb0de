import type { KeyDefinition } from '../host/config/key-definition.js';
import type { ResolvedConfig } from '../host/config/load-config.js';
import * as p from '../host/config/parsers.js';

/** The business API's keys: the queue, the outbox relay, the worker and the profile's preconditions. */
export const ORDERS_KEYS: readonly KeyDefinition[] = [
  // Set → RabbitMQ; unset → the in-process queue (one process; messages end with it).
  { key: 'ConnectionStrings:rabbitmq', parse: p.url(['amqp', 'amqps']), secret: true },
  // the work queue; its dead-letter queue is {name}.dead
  { key: 'Queue:Name', parse: p.str({ pattern: /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,200}$/ }), default: () => 'telemetry-hub.orders' },
  // deliveries a worker holds unacknowledged at once
  { key: 'Queue:Prefetch', parse: p.int(1, 10_000), default: () => 16 },
  // deliveries of one message before it goes to the dead-letter queue
  { key: 'Queue:MaxAttempts', parse: p.int(1, 100), default: () => 5 },
  // run the worker inside this process (npm run worker runs it alone)
  { key: 'Worker:Enabled', parse: p.bool, default: () => true },
  // publish the outbox from this process
  { key: 'Outbox:Relay', parse: p.bool, default: () => true },
  // seconds between looks at the outbox when nothing kicked the relay (rows a crashed process left)
  { key: 'Outbox:PollSeconds', parse: p.num(0.05, 3600), default: () => 1 },
  // a profile PUT or apply without If-Match is refused with 428
  { key: 'Profile:RequireIfMatch', parse: p.bool, default: () => false },
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
