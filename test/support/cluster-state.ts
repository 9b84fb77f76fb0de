import { Redis } from 'ioredis';
import { endMqttSession } from '../../src/adapters/mqtt/mqtt-source.js';

/** What a cluster test leaves behind on the shared services: its broker sessions and its keys in Redis. */
export async function removeClusterState(options: {
  mqttUrl: string;
  clientIds: readonly string[];
  hubName: string;
  redisUrl?: string;
}): Promise<void> {
  for (const clientId of options.clientIds) await endMqttSession(options.mqttUrl, clientId);
  const redis = new Redis(options.redisUrl ?? 'redis://127.0.0.1:6379');
  try {
    const keys = await redis.keys(`telemetry-hub:${options.hubName}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}
