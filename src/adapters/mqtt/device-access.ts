import type { AedesOptions, AuthenticateError, Client } from 'aedes';
import { scheduleExpiry } from '../../host/security/schedule-expiry.js';
import type { DeviceIdentity } from '../../host/security/device-token.js';
import { telemetryTopic } from '../../wire/telemetry-topic.js';

/** Why the embedded broker turned something away; each is counted and logged (sampled). */
export const BROKER_REFUSALS = [
  'bad_credentials',
  'client_id_taken',
  'topic_not_allowed',
  'subscribe_not_allowed',
  'packet_too_large',
  'max_connections',
  'max_connections_per_ip',
] as const;
export type BrokerRefusalReason = (typeof BROKER_REFUSALS)[number];

export interface BrokerRefusal {
  reason: BrokerRefusalReason;
  address?: string | undefined;
  clientId?: string | undefined;
  tenantId?: string | undefined;
  deviceId?: string | undefined;
  /** The refused topic (publish, will or subscription), clipped. */
  topic?: string | undefined;
}

type AuthenticateHandler = NonNullable<AedesOptions['authenticate']>;
type AuthorizePublishHandler = NonNullable<AedesOptions['authorizePublish']>;
type AuthorizeSubscribeHandler = NonNullable<AedesOptions['authorizeSubscribe']>;

/** CONNACK return codes of MQTT 3.1.1 (§3.2.2.3) the hooks answer with. */
const IDENTIFIER_REJECTED = 2;
const NOT_AUTHORIZED = 5;

/**
 * The embedded broker's device rules (contract "Embedded broker security") as aedes hooks:
 * a device authenticates with its token as password (username ignored), may publish only to its own
 * telemetry topic, may not subscribe, and may not take over a client id another device holds.
 */
export function deviceAccessHooks(options: {
  verify: (token: string) => Promise<DeviceIdentity | null>;
  /** Connected clients by id (the broker's `clients`), to see who holds a client id. */
  clients: () => Record<string, Client>;
  /** Counts and logs a refusal; `client` tells the broker which connection (and address) it was. */
  refuse: (refusal: BrokerRefusal, client: Client | null) => void;
}): {
  authenticate: AuthenticateHandler;
  authorizePublish: AuthorizePublishHandler;
  authorizeSubscribe: AuthorizeSubscribeHandler;
} {
  const identities = new WeakMap<Client, DeviceIdentity>();
  const { verify, clients, refuse } = options;

  const authenticate: AuthenticateHandler = (client, _username, password, done) => {
    void verify(password ? password.toString('utf8') : '')
      .then((identity) => {
        if (!identity) {
          refuse({ reason: 'bad_credentials', clientId: client.id }, client);
          return done(refusal(NOT_AUTHORIZED, 'not authorized'), false);
        }
        const holder = clients()[client.id];
        const held = holder ? identities.get(holder) : undefined;
        // The same device reconnecting takes its session over, as MQTT says; another one may not.
        if (holder && (!held || held.tenantId !== identity.tenantId || held.deviceId !== identity.deviceId)) {
          refuse(
            {
              reason: 'client_id_taken',
              clientId: client.id,
              tenantId: identity.tenantId,
              deviceId: identity.deviceId,
            },
            client,
          );
          return done(refusal(IDENTIFIER_REJECTED, 'identifier rejected'), false);
        }
        identities.set(client, identity);
        // Like live socket connections, a device connection ends when its token does.
        const cancel = scheduleExpiry(identity, () => client.close());
        client.conn.once('close', cancel);
        done(null, true);
      })
      .catch(() => {
        // A rejection here would end the process; a connection that cannot be settled is simply cut.
        client.conn.destroy();
      });
  };

  const authorizePublish: AuthorizePublishHandler = (client, packet, done) => {
    const identity = client ? identities.get(client) : undefined;
    if (identity && packet.topic === telemetryTopic(identity.tenantId, identity.deviceId)) {
      // Nobody may subscribe, so a retained copy could never be read: keep none.
      packet.retain = false;
      return done(null);
    }
    refuse(
      {
        reason: 'topic_not_allowed',
        clientId: client?.id,
        tenantId: identity?.tenantId,
        deviceId: identity?.deviceId,
        topic: clip(packet.topic),
      },
      client,
    );
    // MQTT 3.1.1 has no negative PUBACK: an error closes the connection, so the device learns of it.
    done(new Error('topic not allowed'));
  };

  const authorizeSubscribe: AuthorizeSubscribeHandler = (client, subscription, done) => {
    const identity = identities.get(client);
    refuse(
      {
        reason: 'subscribe_not_allowed',
        clientId: client?.id,
        tenantId: identity?.tenantId,
        deviceId: identity?.deviceId,
        topic: clip(subscription.topic),
      },
      client,
    );
    // null grants nothing: the SUBACK carries 0x80 (failure) and the connection stays up.
    done(null, null);
  };

  return { authenticate, authorizePublish, authorizeSubscribe };
}

function refusal(returnCode: number, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

function clip(topic: string): string {
  return topic.length <= 200 ? topic : `${topic.slice(0, 200)}…`;
}
