import type { Logger } from 'pino';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import { endMqttSession } from './mqtt-source.js';

/**
 * Ends every ingest partition's broker session when the cluster's last instance stops (after its
 * sources stopped): a partition that had no holder at that moment would otherwise keep a session
 * queueing every device's readings for no one until it expires (on MQTT 3.1.1, until the id
 * returns). Sessions are kept while another instance runs, or when that cannot be told.
 */
export function partitionSessionsEnd(options: {
  url: () => string;
  clientIds: readonly string[];
  lastOut(): Promise<boolean>;
  log: Logger;
}): HostedService {
  return {
    name: 'mqtt-partition-sessions',
    start: async () => undefined,
    async stop() {
      const { url, clientIds, lastOut, log } = options;
      let last = false;
      try {
        last = await lastOut();
      } catch (err) {
        log.warn({ err: { message: (err as Error).message } }, 'mqtt sessions kept: other ingesters unknown');
      }
      if (!last) return;
      const ended = await Promise.allSettled(clientIds.map((clientId) => endMqttSession(url(), clientId)));
      const failed = clientIds.filter((_, i) => ended[i]!.status === 'rejected');
      if (failed.length > 0) log.warn({ clientIds: failed }, 'mqtt sessions not ended');
      log.info(
        { sessions: clientIds.length - failed.length },
        'mqtt partition sessions ended: the last ingester stopped and no instance will resume them',
      );
    },
  };
}
