import { it } from 'vitest';
import { reachable } from './services.js';

export const RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';

/**
 * Whether RabbitMQ listens. When it does not, registers one test saying why: skipped locally,
 * failing under CI=true, where a missing broker must not silently shrink coverage.
 */
export async function rabbitMqOrReport(what: string): Promise<boolean> {
  if (await reachable(5672)) return true;
  const reason = 'RabbitMQ at 127.0.0.1:5672 is unreachable';
  if (process.env.CI === 'true') {
    it(`${what}: needs RabbitMQ (CI=true)`, () => {
      throw new Error(`${reason}; CI requires it`);
    });
  } else {
    it.skip(`${what}: skipped, ${reason} (start RabbitMQ to run; on CI this fails)`, () => {});
  }
  return false;
}
