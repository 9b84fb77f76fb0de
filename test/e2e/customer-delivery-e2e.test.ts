// The fulfilment worker as `npm run worker` runs it, on RabbitMQ and PostgreSQL: it reads the
// delivery address of an order's customer from the fulfilment context (by id, under the message's
// tenant) and copies it into the fulfilment of the confirmed order; with none on file the
// fulfilment is held and the worker says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../support/app-harness.js';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { createTestDatabase, requirePostgres, type TestDatabase } from '../support/postgres.js';
import { RABBITMQ_URL, rabbitMqOrReport } from '../support/rabbitmq-for-tests.js';

const WORKER = fileURLToPath(new URL('../../dist/src/worker.js', import.meta.url));
const MIGRATE = fileURLToPath(new URL('../../dist/src/tools/migrate-cli.js', import.meta.url));

const ADDRESS = {
  recipient: 'Katherine Johnson',
  line1: '1 Langley Blvd',
  line2: null,
  city: 'Hampton',
  region: 'VA',
  postalCode: '23666',
  country: 'US',
  phone: '+1 757 555 0100',
};

const services = (await requirePostgres()) && (await rabbitMqOrReport('customer delivery end to end'));

describe.runIf(services)('fulfilment worker reads the delivery address (PostgreSQL, RabbitMQ, real processes)', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  let hub: ChildHub;
  let worker: { child: ChildProcess; output: () => string; exited: Promise<number | null> };
  let token: string;
  const queueName = `test.customers.e2e.${randomUUID()}`;
  const args = () => [
    `--ConnectionStrings:postgres=${db.url}`,
    `--ConnectionStrings:rabbitmq=${RABBITMQ_URL}`,
    `--Queue:Name=${queueName}`,
    '--Queue:MaxAttempts=3',
    '--Http:Port=0',
    '--Ingestion:Mqtt:EmbeddedPort=0',
    '--Simulator:Devices=0',
  ];

  beforeAll(async () => {
    db = await createTestDatabase('customers_e2e');
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const migrate = spawn(process.execPath, [MIGRATE, `--ConnectionStrings:postgres=${db.url}`], { stdio: 'ignore' });
    expect(await new Promise((resolve) => migrate.once('exit', resolve))).toBe(0);
    // The hub takes the API calls and publishes; only the standalone worker consumes.
    hub = await startChildHub([...args(), '--Worker:Enabled=false'], { HUB_ENVIRONMENT: 'Development' });
    worker = await startWorker();
    token = await userToken('acme', { sub: 'bob', roles: ['buyer'] });
  }, 60_000);

  afterAll(async () => {
    await hub?.stop();
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await admin?.end();
    await db?.drop();
    const connection = await amqp.connect(RABBITMQ_URL);
    const channel = await connection.createChannel();
    await channel.deleteQueue(queueName);
    await channel.deleteQueue(`${queueName}.dead`);
    await connection.close();
  });

  /** The worker process; resolves once it logged `worker ready`, rejects with its output if it exits. */
  function startWorker(): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
    const child = spawn(process.execPath, [WORKER, ...args()], {
      env: { ...process.env, HUB_ENVIRONMENT: 'Development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    return new Promise((resolve, reject) => {
      void exited.then((code) => reject(new Error(`worker exited with ${code}:\n${out}`)));
      eventually(() => out.includes('worker ready'), 30_000, 'worker ready').then(
        () => resolve({ child, output: () => out, exited }),
        reject,
      );
    });
  }

  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then((r) => r.status);

  /** The confirmed order's fulfilment as the tenant sees it (app role, row-level security). */
  async function confirmedFulfilment(orderId: string): Promise<Record<string, unknown>> {
    const read = async () => {
      await admin.query('begin');
      try {
        await admin.query(`select set_config('role', 'app', true), set_config('app.tenant_id', 'acme', true)`);
        return (
          await admin.query(
            `select customer_id, delivery, delivery_address from fulfilments where order_id = $1 and status = 'confirmed'`,
            [orderId],
          )
        ).rows;
      } finally {
        await admin.query('rollback');
      }
    };
    await eventually(async () => (await read()).length === 1, 20_000, `the fulfilment of ${orderId}`);
    return (await read())[0]!;
  }

  async function placeAndConfirm(orderId: string, customerId: string): Promise<void> {
    expect(
      await send('PUT', `/api/orders/${orderId}`, { customerId, lines: [{ sku: 'gw', quantity: 2, unitPrice: 1000 }] }),
    ).toBe(200);
    expect(await send('POST', `/api/orders/${orderId}/confirm`)).toBe(200);
  }

  it("copies the address of the order's customer into the fulfilment of the confirmed order", async () => {
    expect(await send('PUT', '/v1/customers/cust-e2e/fulfilment', { deliveryAddress: ADDRESS })).toBe(201);
    await placeAndConfirm('e2e-addr', 'cust-e2e');
    expect(await confirmedFulfilment('e2e-addr')).toEqual({
      customer_id: 'cust-e2e',
      delivery: 'addressed',
      delivery_address: ADDRESS,
    });
  }, 60_000);

  it('holds the fulfilment of a customer without an address, says so, and goes on with the next message', async () => {
    await placeAndConfirm('e2e-held', 'cust-unknown');
    expect(await confirmedFulfilment('e2e-held')).toEqual({
      customer_id: 'cust-unknown',
      delivery: 'no-address',
      delivery_address: null,
    });
    await eventually(
      () => /confirmed order held/.test(worker.output()) && worker.output().includes('cust-unknown'),
      10_000,
      'the warning',
    );
    await placeAndConfirm('e2e-next', 'cust-e2e');
    expect((await confirmedFulfilment('e2e-next')).delivery).toBe('addressed');
    // Nothing was dead-lettered: the held order is a handled message.
    const connection = await amqp.connect(RABBITMQ_URL);
    try {
      const channel = await connection.createChannel();
      expect((await channel.checkQueue(`${queueName}.dead`)).messageCount).toBe(0);
    } finally {
      await connection.close();
    }
  }, 60_000);
});
