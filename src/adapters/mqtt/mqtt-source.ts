import { systemClock } from '../../host/clock.js';
import { format } from 'node:util';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { IngestionSource, ReadingSink, SinkResult } from '../../realtime/ingestion-source.js';
import { DEFERRED, SettledAcks } from './settled-acks.js';
import { HANDOVER } from '../../host/lifecycle/handover.js';
import { Backoff } from '../../host/backoff.js';
import { TELEMETRY_SUBSCRIPTION, telemetryReading } from '../../wire/telemetry-topic.js';
import { whenAborted } from '../../host/lifecycle/when-aborted.js';

export interface MqttSourceOptions {
  /** Read at run time: the embedded broker's port is known only once it listens. */
  url: () => string;
  /** Fixed, so a QoS 1 persistent session survives reconnects and restarts. */
  clientId: string;
  qos: 0 | 1;
  /**
   * With QoS 1: how long the broker keeps the session once we disconnected (MQTT 5). 0: a clean
   * session, for a client id nobody resumes (on MQTT 3.1.1 too, where any other value keeps the
   * session until the id returns). Default 0.
   */
  sessionExpirySeconds?: number;
  /** 5 (MQTT 5, user properties carry traceparent) or 4 (MQTT 3.1.1, e.g. the embedded broker). */
  protocolVersion: 4 | 5;
  /**
   * Asked when a run with a kept session ends because the hub stops (not at a handover to another
   * ingester): true when no other instance will resume the session, which is then ended at the
   * broker instead of kept queueing readings for its expiry. Unset: the session is kept (a hub
   * with a stable id alone resumes it when it restarts).
   */
  lastOut?: () => Promise<boolean>;
  /**
   * Whether a message's topic is this source's to ingest (its ingest partition's devices). Any
   * other message is acknowledged and dropped unread: another session (another partition's
   * holder) receives it too. Unset: every message.
   */
  accepts?: (topic: string) => boolean;
  log: Logger;
  backoff?: Backoff;
}

/** MQTT 5 DISCONNECT reason: another connection with this client id took the session over. */
const SESSION_TAKEN_OVER = 0x8e;
/** Quiet closes of a subscribed connection, this many within this window, are a takeover. */
const TAKEOVER_CLOSES = 3;
const TAKEOVER_WINDOW_MS = 60_000;

/**
 * Reads device telemetry from an MQTT broker. QoS 1 with a session expiry uses a persistent
 * session (clean: false), so readings published while the hub was away are delivered when it (or
 * the next ingester) returns; without one, a clean session, so no session outlives a process that
 * nobody resumes. Each message is handed to the sink before mqtt.js acknowledges it, and at QoS 1
 * only once the sink has room (`ReadingSink.ready`, the history writer): until then mqtt.js reads
 * no further packet, the PUBACK waits, and the broker keeps the rest of the session's messages (its
 * in-flight window), so a full writer slows ingestion instead of refusing readings it acknowledged.
 *
 * A second process connecting with the same client id takes the session over: MQTT 5 brokers may
 * say so (reason 0x8E); others just close the older connection, which counts as a takeover the
 * third time within a minute that a subscribed connection closed without an error and the
 * reconnect succeeded at once. This one then logs it, stops reconnecting (two processes would
 * otherwise take the session from each other in turn, each missing readings) and stays unready
 * until its next run (a restart, or the next ingest lease turn).
 */
export class MqttSource implements IngestionSource {
  readonly name = 'mqtt';
  readonly #options: MqttSourceOptions;
  #client: MqttClient | undefined;
  /** The broker acknowledged the telemetry subscription on the current connection. */
  #subscribed = false;
  /** A QoS 1 message waits for room in the sink, unacknowledged. */
  #holding = false;
  /** Another connection took our session over during this run. */
  #takenOver = false;

  constructor(options: MqttSourceOptions) {
    this.#options = options;
  }

  /** Connected and subscribed: readings published from now on reach the sink. */
  get connected(): boolean {
    return !this.#takenOver && this.#subscribed && (this.#client?.connected ?? false);
  }

  async run(sink: ReadingSink, signal: AbortSignal): Promise<void> {
    const { clientId, qos, protocolVersion, log } = this.#options;
    const expiry = qos === 1 ? (this.#options.sessionExpirySeconds ?? 0) : 0;
    const url = this.#options.url();
    this.#takenOver = false;
    const backoff = this.#options.backoff ?? new Backoff();
    const options: IClientOptions = {
      clientId,
      protocolVersion,
      clean: expiry === 0,
      reconnectPeriod: backoff.next(),
      connectTimeout: 10_000,
      keepalive: 30,
      // We subscribe on every connect ourselves, so mqtt.js must not do it a second time.
      resubscribe: false,
      log: clientLog(log),
      // Called before mqtt.js emits a QoS 1 message and sends its PUBACK; it reads the next packet
      // only after this answers. The room is checked and the message offered in the same turn.
      customHandleAcks: (_topic, _message, _packet, done) => {
        const go = (): void => {
          // Stopping while held: never acknowledged, so the broker delivers it again next session.
          // mqtt.js reads no further packet meanwhile, so the connection is closed forced, not
          // waited for (a graceful close could wait on the unread rest for ever).
          if (signal.aborted) {
            this.#holding = true;
            return;
          }
          const wait = sink.ready?.();
          if (wait === undefined) {
            this.#holding = false;
            done(0);
          } else {
            this.#holding = true;
            void wait.then(go);
          }
        };
        go();
      },
      ...(protocolVersion === 5 && expiry > 0 ? { properties: { sessionExpiryInterval: expiry } } : {}),
    };
    const client = mqtt.connect(url, options);
    this.#client = client;

    client.on('connect', (connack) => {
      failed = false;
      countedSinceConnect = false;
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
    const takenOver = (how: string) => {
      if (this.#takenOver || signal.aborted) return;
      this.#takenOver = true;
      this.#subscribed = false;
      log.error(
        { clientId, how },
        'mqtt session taken over by another connection with this client id: this instance stops reading the broker and is unready; give each hub (or each cluster) a client id of its own',
      );
      // No reconnect: it would take the session back, and the other would take it again.
      client.end(true);
    };
    // A broker that does not say "taken over" (MQTT 3.1.1, Mosquitto 2.0) just closes the older
    // connection of a client id: a subscribed connection closed with no error is counted, and the
    // count taken back when the reconnect fails (the broker went away, not the session).
    let quietCloses: number[] = [];
    let countedSinceConnect = false;
    let failed = false;
    client.on('close', () => {
      const wasSubscribed = this.#subscribed;
      this.#subscribed = false;
      if (!wasSubscribed || failed || signal.aborted) return;
      const now = systemClock.monotonicNow();
      quietCloses = [...quietCloses.filter((at) => now - at < TAKEOVER_WINDOW_MS), now];
      countedSinceConnect = true;
      if (quietCloses.length >= TAKEOVER_CLOSES)
        takenOver(
          `closed by the broker ${TAKEOVER_CLOSES} times within ${TAKEOVER_WINDOW_MS / 1000} s, each time up again at once`,
        );
    });
    client.on('disconnect', (packet) => {
      if (packet.reasonCode === SESSION_TAKEN_OVER) takenOver('disconnect reason 0x8E');
    });
    client.on('offline', () => log.warn({ url: redactUrl(url) }, 'mqtt offline'));
    client.on('error', (err) => {
      failed = true;
      if (countedSinceConnect) quietCloses.pop();
      countedSinceConnect = false;
      log.warn({ err: { message: err.message, code: (err as { code?: unknown }).code } }, 'mqtt error');
    });
    // mqtt.js acknowledges a QoS 1 message once this returns (after 'message'). One the sink
    // refused as `fenced` (this instance's ingest lease holding ran out) is not ours to take: no
    // acknowledgement, and the connection is dropped, so the broker sends it again on the next
    // connection of the session (ours once we hold the lease again, or the next ingester's).
    let withhold = false;
    let result: SinkResult | undefined;
    const acks = new SettledAcks(client);
    client.handleMessage = (packet, done) => {
      if (withhold) {
        withhold = false;
        acks.dropConnection();
        return;
      }
      const offered = result;
      result = undefined;
      if (packet.cmd !== 'publish' || packet.qos !== 1) return done();
      const settled = offered?.accepted === true ? offered.settled : undefined;
      if (settled === undefined && acks.idle) return done();
      // Its outcome is pending (or an earlier one's is): acknowledged once known, in order, while
      // mqtt.js reads on.
      acks.defer(packet.messageId!, settled);
      // Too many waiting: mqtt.js reads the next packet (and the socket) only once one is answered.
      const room = acks.room();
      if (room === undefined) done(DEFERRED);
      else void room.then(() => done(DEFERRED));
    };
    const accepts = this.#options.accepts;
    client.on('message', (topic, payload, packet) => {
      if (accepts !== undefined && !accepts(topic)) return;
      const raw = telemetryReading(topic, payload);
      const traceparent = userProperty(packet.properties?.userProperties, 'traceparent');
      if (traceparent) raw.traceparent = traceparent;
      // The broker resends a message it may have delivered before (its ingester crashed or the
      // connection broke before the acknowledgement) with DUP set: the redelivery window asks.
      if (packet.qos > 0) {
        raw.resendable = true;
        if (packet.dup) raw.redelivered = true;
      }
      result = sink.offer(raw);
      withhold = packet.qos > 0 && !result.accepted && result.reason === 'fenced';
    });

    await whenAborted(signal);
    // The acknowledgements of readings still settling go out before a graceful close.
    await acks.drained();
    const endSession = expiry > 0 && signal.reason !== HANDOVER && !this.#takenOver && (await this.#lastOut());
    // Not forced: outstanding acknowledgements go out before the connection closes. Forced while
    // the subscription is unanswered: a graceful end would wait for that answer, maybe forever.
    // Forced too while a message waits for room: it stays unacknowledged, the broker keeps it.
    await client
      .endAsync(
        !this.#subscribed || this.#holding,
        endSession && protocolVersion === 5 ? { properties: { sessionExpiryInterval: 0 } } : undefined,
      )
      .catch((err: unknown) => log.warn({ err }, 'mqtt close failed'));
    if (endSession) await this.#endSession(url, protocolVersion === 5);
    this.#client = undefined;
    this.#subscribed = false;
    this.#holding = false;
  }

  async #lastOut(): Promise<boolean> {
    try {
      return (await this.#options.lastOut?.()) === true;
    } catch (err) {
      // Unknown (Redis away): keep the session; its expiry bounds what it costs the broker.
      this.#options.log.warn(
        { err: { message: (err as Error).message } },
        'mqtt session kept: other ingesters unknown',
      );
      return false;
    }
  }

  /**
   * MQTT 5 ended it with the DISCONNECT (session expiry 0). MQTT 3.1.1 has no such field: a clean
   * connection with the same id discards the session, and is closed at once.
   */
  async #endSession(url: string, saidInDisconnect: boolean): Promise<void> {
    const { clientId, log } = this.#options;
    if (!saidInDisconnect) {
      try {
        await endMqttSession(url, clientId);
      } catch (err) {
        log.warn({ err: { message: (err as Error).message }, clientId }, 'mqtt session not ended');
        return;
      }
    }
    log.info({ clientId }, 'mqtt session ended: the last ingester stopped and no instance will resume it');
  }
}

/**
 * Ends a client id's session at the broker: a clean connection with the id discards it (MQTT
 * 3.1.1's way, which MQTT 5 brokers honour too), and is closed at once.
 */
export async function endMqttSession(url: string, clientId: string): Promise<void> {
  const clean = await mqtt.connectAsync(url, {
    clientId,
    clean: true,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });
  await clean.endAsync();
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
