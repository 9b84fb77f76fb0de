import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { eventually } from '../support/app-harness.js';
import {
  privateRedis,
  privateServer,
  redisUrl,
  requireCommand,
  type PrivateServer,
} from '../support/private-server.js';

/**
 * Hub processes restarted against a broker of the test's own, whose `$SYS` tree (published every
 * second) counts the sessions it keeps for clients that are gone.
 */
if (requireCommand('mosquitto', 'a private broker whose sessions are counted')) {
  describe('no orphaned broker sessions: restarts leave at most one kept session (private Mosquitto, real hub processes)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-sessions-'));
    let broker: PrivateServer;
    let observer: MqttClient;
    const sys = new Map<string, number>();
    const hubs: ChildHub[] = [];

    beforeAll(async () => {
      broker = await privateServer('mosquitto', (port) => {
        const conf = join(dir, `mosquitto-${port}.conf`);
        writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\nsys_interval 1\n`);
        return ['-c', conf];
      });
      await broker.start();
      observer = await mqtt.connectAsync(url(), { clientId: 'sys-observer', clean: true, protocolVersion: 4 });
      observer.on('message', (topic, payload) =>
        sys.set(topic.slice('$SYS/broker/clients/'.length), Number(payload.toString())),
      );
      await observer.subscribeAsync('$SYS/broker/clients/+');
    });
    afterEach(async () => {
      for (const hub of hubs.splice(0)) await hub.stop();
    });
    afterAll(async () => {
      await observer?.endAsync();
      await broker?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const url = () => `mqtt://127.0.0.1:${broker.port}`;

    async function hub(extra: string[] = []): Promise<ChildHub> {
      const started = await startChildHub(
        [
          '--environment=Development',
          '--Http:Port=0',
          '--Ingestion:Mqtt:Embedded=false',
          `--ConnectionStrings:mqtt=${url()}`,
          '--Ingestion:Mqtt:Qos=1',
          ...extra,
        ],
        {},
        60_000,
      );
      hubs.push(started);
      await eventually(
        async () => (await fetch(`${started.url}/health/ready`)).status === 200,
        20_000,
        'the hub ready (subscribed to the broker)',
      );
      return started;
    }

    async function kill9(h: ChildHub): Promise<void> {
      const exited = new Promise((resolve) => h.child.once('exit', resolve));
      h.child.kill('SIGKILL');
      await exited;
      hubs.splice(hubs.indexOf(h), 1);
    }

    async function term(h: ChildHub): Promise<void> {
      expect(await h.stop()).toBe(0);
      hubs.splice(hubs.indexOf(h), 1);
    }

    /** Sessions the broker keeps for clients that are gone, once every hub stopped. */
    async function keptSessions(expected: number): Promise<void> {
      // Only the observer connected, and the count of gone clients' sessions settled at `expected`.
      await eventually(
        () => sys.get('connected') === 1 && sys.get('disconnected') === expected,
        10_000,
        `${expected} kept session(s) in $SYS/broker/clients`,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; $SYS says ${JSON.stringify(Object.fromEntries(sys))}`);
      });
    }

    it('a hub whose client id dies with it (no Hub:InstanceId, no Redis) takes a clean session: SIGTERM and kill -9 restarts leave none', async () => {
      await term(await hub());
      await kill9(await hub());
      await term(await hub());
      await keptSessions(0);
    }, 180_000);

    it('a hub with a stable Hub:InstanceId resumes its own session across SIGTERM and kill -9 restarts: one kept session, never more', async () => {
      const id = ['--Hub:InstanceId=sessions-stable'];
      await term(await hub(id));
      await kill9(await hub(id));
      const last = await hub(id);
      expect(last.output()).toMatch(/sessionPresent"?:\s*true/);
      await term(last);
      await keptSessions(1);
      // Leave nothing for the next test: the same id, clean, ends the session.
      const clean = await mqtt.connectAsync(url(), {
        clientId: 'telemetry-hub-sessions-stable',
        clean: true,
        protocolVersion: 5,
      });
      await clean.endAsync();
    }, 180_000);

    it.each([5, 4])(
      'a cluster hands its session from ingester to ingester, and the last instance to stop ends it at the broker: none kept (MQTT protocol %i)',
      async (version) => {
        const redis = await privateRedis();
        await redis.start();
        try {
          const cluster = [
            `--ConnectionStrings:redis=${redisUrl(redis)}`,
            `--Hub:Name=sessions_cluster${version}`,
            `--Ingestion:Mqtt:ProtocolVersion=${version}`,
          ];
          const pair = [await hub(cluster), await hub(cluster)];
          const ingesting = (h: ChildHub) => /ingest lease acquired/.test(h.output());
          await eventually(() => pair.some(ingesting), 20_000, 'one instance ingesting');
          const holder = pair.find(ingesting)!;
          const standby = pair.find((h) => h !== holder)!;
          // Not the last: the session stays for the standby, which resumes it.
          await term(holder);
          expect(holder.output()).not.toMatch(/mqtt session ended/);
          await eventually(
            () => /sessionPresent"?:\s*true/.test(standby.output()),
            20_000,
            'the standby resumed the cluster session',
          );
          await term(standby);
          expect(standby.output()).toMatch(/mqtt session ended/);
          await keptSessions(0);
        } finally {
          await redis.stop();
        }
      },
      180_000,
    );

    it('a second process with the same client id takes the session over: one of the two logs it and turns unready instead of taking it back, the other keeps reading', async () => {
      const id = ['--Hub:InstanceId=sessions-twin'];
      const twins = [await hub(id), await hub(id)];
      const told = () => twins.filter((h) => /session taken over/.test(h.output()));
      await eventually(() => told().length === 1, 30_000, "the takeover in one hub's log");
      const [gaveUp] = told();
      const kept = twins.find((h) => h !== gaveUp)!;
      await eventually(
        async () => (await fetch(`${gaveUp!.url}/health/ready`)).status === 503,
        10_000,
        'the hub that gave up unready',
      );
      await eventually(
        async () => (await fetch(`${kept.url}/health/ready`)).status === 200,
        10_000,
        'the other hub ready',
      );
      expect(told()).toHaveLength(1);
      const clean = await mqtt.connectAsync(url(), {
        clientId: 'telemetry-hub-sessions-twin',
        clean: true,
        protocolVersion: 5,
      });
      await clean.endAsync();
    }, 180_000);
  });
}
