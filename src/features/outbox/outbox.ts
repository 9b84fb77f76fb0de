import type { Sql } from '../storage/database.js';

/**
 * Adds a message to the transactional outbox inside the caller's unit of work: it commits (or rolls
 * back) with the change it announces, and the relay publishes it afterwards. Its uuid is the queue
 * message id consumers dedupe by; `tenant_id` is always among its headers.
 */
export async function addToOutbox(
  sql: Sql,
  tenantId: string,
  body: object,
  headers: Readonly<Record<string, string>>,
): Promise<void> {
  await sql.query(
    `insert into outbox (id, tenant_id, body, headers) values (gen_random_uuid(), $1, $2::jsonb, $3::jsonb)`,
    [tenantId, JSON.stringify(body), JSON.stringify({ ...headers, tenant_id: tenantId })],
  );
}
