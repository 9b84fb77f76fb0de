import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStoreService } from '../../src/compose/checkpoint-store-service.js';
import { privateRedis, redisUrl, requireCommand, type PrivateServer } from '../support/private-server.js';
import { waitFor } from '../adapters/eventhubs/wait-for.js';

describe('Event Hubs checkpoints in a Redis that is down at start', () => {
  const available = requireCommand('redis-server', 'needed to stop and restart a private Redis');
  let redis: PrivateServer | undefined;
  let service: CheckpointStoreService | undefined;

  afterEach(async () => {
    await service?.stop();
    await redis?.stop();
  });

  it('start succeeds, store calls fail at once while Redis is down, and succeed once it is up', async ({ skip }) => {
    if (!available) return skip();
    redis = await privateRedis();
    service = new CheckpointStoreService(redisUrl(redis), false, pino({ level: 'silent' }));
    await service.start();
    const store = service.store;
    const t0 = Date.now();
    await expect(store.listOwnership('ns', 'hub', '$Default')).rejects.toThrow();
    // Fails instead of waiting for Redis: the processor retries on its next load-balancing round.
    expect(Date.now() - t0).toBeLessThan(1000);

    await redis.start();
    await waitFor(
      'the store answering once Redis is up',
      () =>
        store.listOwnership('ns', 'hub', '$Default').then(
          () => true,
          () => false,
        ),
      15_000,
    );
    expect(await store.listOwnership('ns', 'hub', '$Default')).toEqual([]);
  }, 30_000);
});
