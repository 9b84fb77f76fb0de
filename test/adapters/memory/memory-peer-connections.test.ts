import { MemoryPeerBus } from '../../../src/adapters/memory/memory-peer-connections.js';
import { runPeerConnectionsContract } from '../../realtime/peer-connections.case.js';

runPeerConnectionsContract('MemoryPeer', async (size) => {
  const bus = new MemoryPeerBus();
  const nodes = Array.from({ length: size }, () => bus.node());
  return { nodes, kill: async (i) => nodes[i]!.close(), dispose: async () => nodes.forEach((n) => n.close()) };
});
