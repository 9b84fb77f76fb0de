import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy between one subscriber and its hub that the soak can cut. */
export interface CuttableProxy {
  readonly port: number;
  /** Resets every connection through it and refuses new ones for `ms`. */
  cut(ms: number): void;
  /** Ends a cut early: new connections are forwarded again. */
  heal(): void;
  close(): Promise<void>;
}

/**
 * Forwards 127.0.0.1:port to 127.0.0.1:upstreamPort. A cut resets both sides at once (the
 * subscriber and the hub each see the connection die, as when a link drops) and, until it ends,
 * resets every new connection right after accepting it.
 */
export async function cuttableProxy(upstreamPort: number): Promise<CuttableProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let cutUntil = 0;
  const server = createServer((client) => {
    if (Date.now() < cutUntil) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    cut(ms) {
      cutUntil = Date.now() + ms;
      for (const [client, upstream] of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
    },
    heal() {
      cutUntil = 0;
    },
    close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
