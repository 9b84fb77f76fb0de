import { format } from 'node:util';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { IngestionSource, ReadingSink } from '../source.js';
import { Backoff } from './backoff.js';
import { TELEMETRY_SUBSCRIPTION, telemetryReading } from './telemetry-topic.js';

export interface MqttSourceOptions {
  /** Read at run time: the embedded broker's port is known only once it listens. */
  url: () => string;
  /** Fixed, so a QoS 1 persistent session survives reconnects and restarts. */
  clientId: string;
  qos: 0 | 1;
  /** 5 (MQTT 5, user properties carry traceparent) or 4 (MQTT 3.1.1, e.g. the embedded broker). */
  protocolVersion: 4 | 5;
  log: Logger;
  backoff?: Backoff;
}

/**
 * Reads device telemetry from an MQTT broker. QoS 1 uses a persistent session (clean: false), so
 * readings published while the hub was away are delivered when it returns. Each message is handed
 * to the sink before mqtt.js acknowledges it.
 */
export class MqttSource implements IngestionSource {
  readonly name = 'mqtt';
  readonly #options: MqttSourceOptions;
  #client: MqttClient | undefined;
  /** The broker acknowledged the telemetry subscription on the current connection. */
  #subscribed = false;

  constructor(options: MqttSourceOptions) {
    this.#options = options;
  }

  /** Connected and subscribed: readings published from now on reach the sink. */
  get connected(): boolean {
    return this.#subscribed && (this.#client?.connected ?? false);
  }

  async run(sink: ReadingSink, signal: AbortSignal): Promise<void> {
    const { clientId, qos, protocolVersion, log } = this.#options;
    const url = this.#options.url();
    const backoff = this.#options.backoff ?? new Backoff();
    const options: IClientOptions = {
      clientId,
      protocolVersion,
      clean: qos === 0,
      reconnectPeriod: backoff.next(),
      connectTimeout: 10_000,
      keepalive: 30,
      // We subscribe on every connect ourselves, so mqtt.js must not do it a second time.
      resubscribe: false,
      log: clientLog(log),
      ...(protocolVersion === 5 && qos === 1 ? { properties: { sessionExpiryInterval: 3600 } } : {}),
    };
    const client = mqtt.connect(url, options);
    this.#client = client;

    client.on('connect', (connack) => {
      backoff.reset();
      client.options.reconnectPeriod = backoff.next();
      // mqtt.js leaves Nagle on; readings are small and latency matters (Nagle costs 20–40 ms).
      (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      log.info({ url: redactUrl(url), clientId, sessionPresent: connack.sessionPresent }, 'mqtt connected');
      client.subscribe(TELEMETRY_SUBSCRIPTION, { qos }, (err) => {
        if (err) log.error({ err }, 'mqtt subscribe failed');
        else this.#subscribed = client.connected;
      });
    });
    client.on('reconnect', () => {
      client.options.reconnectPeriod = backoff.next();
    });
    client.on('close', () => {
      this.#subscribed = false;
    });
    client.on('offline', () => log.warn({ url: redactUrl(url) }, 'mqtt offline'));
    client.on('error', (err) => log.warn({ err: { message: err.message, code: (err as { code?: unknown }).code } }, 'mqtt error'));
    client.on('message', (topic, payload, packet) => {
      const raw = telemetryReading(topic, payload);
      const traceparent = userProperty(packet.properties?.userProperties, 'traceparent');
      if (traceparent) raw.traceparent = traceparent;
      sink.offer(raw);
    });

    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // Not forced: outstanding acknowledgements go out before the connection closes. Forced while
    // the subscription is unanswered: a graceful end would wait for that answer, maybe forever.
    await client.endAsync(!this.#subscribed).catch((err: unknown) => log.warn({ err }, 'mqtt close failed'));
    this.#client = undefined;
    this.#subscribed = false;
  }
}

/**
 * mqtt.js traces every packet through its `log` (the `debug` package by default): several calls per
 * reading, each paying debug's enabled check. Its lines go to the hub's log at Trace instead, and
 * cost one empty call each when Trace is off.
 */
function clientLog(log: Logger): (...args: unknown[]) => void {
  if (!log.isLevelEnabled('trace')) return ignore;
  return (...args: unknown[]) => log.trace(format(...args));
}

function ignore(): void {}

function userProperty(props: Record<string, string | string[]> | undefined, name: string): string | undefined {
  const value = props?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Broker URLs may carry credentials. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'redacted';
    return u.toString();
  } catch {
    return 'invalid-url';
  }
}
