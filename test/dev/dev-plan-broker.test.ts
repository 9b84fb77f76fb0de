// Issue 27 item 8: the plan starts the message broker. With this machine's rabbitmq-server (and
// PostgreSQL) a private node on its own ports comes before the hubs, which publish to it, and the
// standalone worker consumes; without it, the in-process queue and each hub's own worker, as the
// page says. Every process exports its spans to the page's receiver.
import { describe, expect, it } from 'vitest';
import { describeQueue, planResources, type DevEnvironment, type DevOptions } from '../../src/dev/dev-plan.js';

const options: DevOptions = {
  root: '/project',
  port: 0,
  dashboardPort: 0,
  instances: 2,
  devices: 1,
  rate: 1,
  dataDir: '/data',
};

function environment(binaries: DevEnvironment['binaries'], rabbitMqUrl?: string): DevEnvironment {
  let port = 40_000;
  return {
    binaries,
    scripts: {
      migrate: 'npm run build && node dist/src/tools/migrate-cli.js',
      worker: 'npm run build && node dist/src/worker.js',
    },
    postgresInitialised: true,
    postgresUser: undefined,
    rabbitMqUrl,
    otlpEndpoint: 'http://127.0.0.1:4318',
    freePort: async () => ++port,
  };
}

const local = {
  'redis-server': '/bin/redis-server',
  mosquitto: '/bin/mosquitto',
  postgres: '/bin/postgres',
  initdb: '/bin/initdb',
};

describe('npm run dev: the message broker in the plan', () => {
  it('rabbitmq-server installed: its own port mapper and node before the hubs; the hubs publish, the worker consumes', async () => {
    const specs = await planResources(
      options,
      environment({ ...local, 'rabbitmq-server': '/lib/rabbitmq-server', epmd: '/bin/epmd' }),
    );
    const byName = new Map(specs.map((s) => [s.name, s]));
    const rabbit = byName.get('rabbitmq')!;
    expect(rabbit.after).toEqual(['epmd']);
    const epmdPort = byName.get('epmd')!.args[1];
    expect(rabbit.env['ERL_EPMD_PORT']).toBe(epmdPort);
    const amqpPort = rabbit.env['RABBITMQ_NODE_PORT'];
    expect(rabbit.readiness).toEqual({ kind: 'port', port: Number(amqpPort) });
    // Private files and node name: nothing shared with a RabbitMQ already running here.
    expect(rabbit.env['RABBITMQ_MNESIA_BASE']).toBe('/data/rabbitmq/mnesia');
    expect(rabbit.env['RABBITMQ_NODENAME']).toBe(`dev-${amqpPort}@localhost`);
    const url = `amqp://guest:guest@127.0.0.1:${amqpPort}`;
    for (const hub of ['hub-1', 'hub-2']) {
      const spec = byName.get(hub)!;
      expect(spec.after).toEqual(expect.arrayContaining(['rabbitmq', 'migrations']));
      expect(spec.env).toMatchObject({
        ConnectionStrings__rabbitmq: url,
        Worker__Enabled: 'false',
        Telemetry__Otlp__Endpoint: 'http://127.0.0.1:4318',
      });
    }
    expect(byName.get('worker')!.after).toEqual(expect.arrayContaining(['rabbitmq', 'migrations']));
    expect(byName.get('worker')!.env).toMatchObject({
      ConnectionStrings__rabbitmq: url,
      Telemetry__Otlp__Endpoint: 'http://127.0.0.1:4318',
    });
    expect(byName.get('gateway')!.env['Telemetry__Otlp__Endpoint']).toBe('http://127.0.0.1:4318');
    // The specification's order: broker and database, migrations, hubs, worker, gateway last.
    const names = specs.map((s) => s.name);
    expect(names.indexOf('rabbitmq')).toBeLessThan(names.indexOf('migrations'));
    expect(names.indexOf('migrations')).toBeLessThan(names.indexOf('hub-1'));
    expect(names.indexOf('hub-2')).toBeLessThan(names.indexOf('worker'));
    expect(names.at(-1)).toBe('gateway');
    expect(describeQueue(specs)).toMatch(
      /^RabbitMQ: a private node .*127\.0\.0\.1:\d+.*the standalone worker consumes/,
    );
  });

  it('the developer’s RabbitMQ (ConnectionStrings__rabbitmq) is used as it is, no node of its own', async () => {
    const specs = await planResources(
      options,
      environment(
        { ...local, 'rabbitmq-server': '/lib/rabbitmq-server', epmd: '/bin/epmd' },
        'amqp://me:secret@127.0.0.1:5672/dev',
      ),
    );
    expect(specs.map((s) => s.name)).not.toContain('rabbitmq');
    expect(specs.find((s) => s.name === 'hub-1')!.env['ConnectionStrings__rabbitmq']).toBe(
      'amqp://me:secret@127.0.0.1:5672/dev',
    );
    expect(describeQueue(specs)).toContain('amqp://me:***@127.0.0.1:5672/dev');
  });

  it('no rabbitmq-server: the in-process queue, each hub its own worker, and the page says so', async () => {
    const specs = await planResources(options, environment(local));
    expect(specs.map((s) => s.name)).not.toEqual(expect.arrayContaining(['rabbitmq']));
    expect(specs.map((s) => s.name)).not.toContain('worker');
    expect(specs.find((s) => s.name === 'hub-1')!.env['ConnectionStrings__rabbitmq']).toBeUndefined();
    expect(specs.find((s) => s.name === 'hub-1')!.env['Worker__Enabled']).toBeUndefined();
    expect(describeQueue(specs)).toMatch(/^In-process queue: each hub runs its own worker/);
  });

  it('no PostgreSQL: no RabbitMQ either (a shared queue needs the shared database)', async () => {
    const specs = await planResources(
      options,
      environment({ 'rabbitmq-server': '/lib/rabbitmq-server', epmd: '/bin/epmd' }),
    );
    expect(specs.map((s) => s.name)).not.toContain('rabbitmq');
    expect(describeQueue(specs)).toMatch(/^In-process queue/);
  });
});
