// The orders pipeline on the real services, as processes: PostgreSQL, RabbitMQ, the built hub and the
// built worker (`npm run worker`). A hub killed between its commit and the publish loses nothing; the
// worker writes under the message's tenant (row-level security checked as the app role); a message
// delivered twice writes once; a poison message is dead-lettered after Queue:MaxAttempts.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RabbitMqQueue } from '../../src/adapters/rabbitmq/rabbitmq-queue.js';
import { userToken } from '../support/app-harness.js';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { createTestDatabase, requirePostgres, type TestDatabase } from '../support/postgres.js';
import { RABBITMQ_URL, rabbitMqOrReport } from '../support/rabbitmq-for-tests.js';

const WORKER = fileURLToPath(new URL('../../dist/src/worker.js', import.meta.url));
const MIGRATE = fileURLToPath(new URL('../../dist/src/tools/migrate-cli.js', import.meta.url));

const services = (await requirePostgres()) && (await rabbitMqOrReport('orders end to end'));

describe.runIf(services)('orders end to end (PostgreSQL, RabbitMQ, real processes)', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  const queueName = `test.orders.e2e.${randomUUID()}`;
  const args = () => [
    `--ConnectionStrings:postgres=${db.url}`,
    `--ConnectionStrings:rabbitmq=${RABBITMQ_URL}`,
    `--Queue:Name=${queueName}`,
    '--Queue:MaxAttempts=3',
    // One delivery at a time: a marker published last is handled last.
    '--Queue:Prefetch=1',
    '--Http:Port=0',
    '--Ingestion:Mqtt:EmbeddedPort=0',
    '--Simulator:Devices=0',
  ];
  const children: { stop(): Promise<unknown> }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('orders_e2e');
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  }, 30_000);

  afterAll(async () => {
    for (const c of children) await c.stop();
    await admin?.end();
    await db?.drop();
    const connection = await amqp.connect(RABBITMQ_URL);
    const channel = await connection.createChannel();
    await channel.deleteQueue(queueName);
    await channel.deleteQueue(`${queueName}.dead`);
    await connection.close();
  });

  /** The worker process; resolves once it logged `worker ready`, rejects with its output if it exits. */
  function startWorker(
    extra: string[] = [],
  ): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
    const child = spawn(process.execPath, [WORKER, ...args(), ...extra], {
      env: { ...process.env, HUB_ENVIRONMENT: 'Development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    children.push({ stop: async () => child.exitCode === null && (child.kill('SIGTERM'), await exited) });
    return new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        if (out.includes('worker ready')) {
          clearInterval(timer);
          resolve({ child, output: () => out, exited });
        }
      }, 20);
      void exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`worker exited with ${code}:\n${out}`));
      });
    });
  }

  async function poll<T>(
    read: () => Promise<T>,
    done: (v: T) => boolean,
    what: string,
    timeoutMs = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** What a tenant sees, through the app role and row-level security, as the hub's units of work do. */
  async function asTenant<R>(tenant: string, text: string, params: unknown[] = []): Promise<R[]> {
    await admin.query('begin');
    try {
      await admin.query(`select set_config('role', 'app', true), set_config('app.tenant_id', $1, true)`, [tenant]);
      return (await admin.query(text, params)).rows as R[];
    } finally {
      await admin.query('rollback');
    }
  }

  it('the worker waits for the migrations: against an unmigrated database it refuses to start, naming npm run migrate', async () => {
    const worker = startWorker();
    await expect(worker).rejects.toThrow(/npm run migrate/);
  });

  it('a hub killed after its commit and before publishing loses nothing: the worker (alone) publishes the outbox and writes under the tenant', async () => {
    const migrate = spawn(process.execPath, [MIGRATE, `--ConnectionStrings:postgres=${db.url}`], { stdio: 'ignore' });
    expect(await new Promise((resolve) => migrate.once('exit', resolve))).toBe(0);

    // The hub commits orders but neither publishes nor consumes: it dies with its messages in the outbox.
    const hub: ChildHub = await startChildHub([...args(), '--Outbox:Relay=false', '--Worker:Enabled=false'], {
      HUB_ENVIRONMENT: 'Development',
    });
    children.push(hub);
    const token = await userToken('acme', { sub: 'bob', roles: ['buyer'] });
    const put = await fetch(`${hub.url}/api/orders/e2e-1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId: 'cust-1', lines: [{ sku: 'gw', quantity: 2, unitPrice: 1000 }] }),
    });
    expect(put.status).toBe(200);
    const confirm = await fetch(`${hub.url}/api/orders/e2e-1/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(confirm.status).toBe(200);
    const pending = await admin.query(`select tenant_id, headers from outbox order by position`);
    expect(pending.rows.map((r) => r.tenant_id)).toEqual(['acme', 'acme']);
    // Telemetry off: the request's trace id, marked not sampled (nothing recorded a span to be its parent).
    expect(pending.rows[0].headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    hub.child.kill('SIGKILL');
    await new Promise((resolve) => hub.child.once('exit', resolve));

    await startWorker();
    const rows = await poll(
      () =>
        asTenant<{ order_version: number; status: string; total: string }>(
          'acme',
          `select order_version, status, total from fulfilments where order_id = 'e2e-1' order by order_version`,
        ),
      (r) => r.length >= 2,
      'both fulfilments',
    );
    expect(rows.map((r) => [r.order_version, r.status, Number(r.total)])).toEqual([
      [1, 'draft', 2000],
      [2, 'confirmed', 2000],
    ]);
    expect((await admin.query(`select count(*)::int as n from outbox`)).rows[0].n).toBe(0);
    // Row-level security: the rows are acme's alone, and the owner's view shows they exist for no one else.
    expect(await asTenant('globex', `select 1 from fulfilments`)).toEqual([]);
    expect(
      (await admin.query(`select tenant_id from fulfilments where order_id = 'e2e-1'`)).rows.map((r) => r.tenant_id),
    ).toEqual(['acme', 'acme']);
  }, 60_000);

  it('a message delivered twice writes once; a poison message is dead-lettered after 3 attempts', async () => {
    const queue = new RabbitMqQueue(RABBITMQ_URL, { name: queueName, maxAttempts: 3 }, pino({ level: 'silent' }));
    try {
      const order = (id: string) => ({
        type: 'order.changed',
        order: { orderId: id, customerId: 'c', status: 'draft', lines: [], total: 0, version: 1 },
      });
      const twice = {
        id: randomUUID(),
        body: Buffer.from(JSON.stringify(order('dup-1'))),
        headers: { tenant_id: 'acme' },
      };
      await queue.publish(twice);
      await queue.publish(twice);
      const poison = { id: randomUUID(), body: Buffer.from(JSON.stringify(order('poison-1'))), headers: {} };
      await queue.publish(poison);
      const marker = {
        id: randomUUID(),
        body: Buffer.from(JSON.stringify(order('marker-1'))),
        headers: { tenant_id: 'acme' },
      };
      await queue.publish(marker);

      await poll(
        () => asTenant('acme', `select 1 from fulfilments where order_id = 'marker-1'`),
        (r) => r.length === 1,
        'the marker',
      );
      expect(await asTenant('acme', `select message_id from fulfilments where order_id = 'dup-1'`)).toEqual([
        { message_id: twice.id },
      ]);
      const dead = await poll(
        () => queue.takeDeadLetter(),
        (d) => d !== undefined,
        'the dead letter',
      );
      expect(dead!.id).toBe(poison.id);
      expect(
        (await admin.query(`select count(*)::int as n from fulfilments where order_id = 'poison-1'`)).rows[0].n,
      ).toBe(0);
    } finally {
      await queue.close();
    }
  }, 60_000);
});
