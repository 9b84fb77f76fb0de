import type { CloseReason } from '../../../src/wire/message.js';
import { MemoryConnection } from '../../../src/adapters/memory/memory-connection.js';
import { runHubConnectionContract } from '../../realtime/hub-connection.case.js';

runHubConnectionContract('MemoryConnection', async () => {
  let closedWith!: (reason: CloseReason) => void;
  const closed = new Promise<CloseReason>((resolve) => (closedWith = resolve));
  const connection = new MemoryConnection({
    id: 'memory',
    tenantId: 'demo',
    capacity: 64,
    maxUnkeyed: 50,
    onClose: (_c, reason) => closedWith(reason),
  });
  return {
    connection,
    get received() {
      return connection.received.map((m) => m.data);
    },
    stall: () => connection.pause(),
    resume: () => connection.resume(),
    pending: () => connection.pending,
    closed,
    maxUnkeyed: 50,
    dispose: async () => undefined,
  };
});
