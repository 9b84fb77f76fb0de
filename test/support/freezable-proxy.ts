import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy in front of one server that can stand for a process stopped with SIGSTOP. */
export interface FreezableProxy {
  readonly port: number;
  /**
   * What the client sends from now on is held, not forwarded, and new connections are refused:
   * the client's writes sit in its kernel as a stopped process's do. What the server sends still
   * arrives, and a server closing the connection closes it for the client too.
   */
  freeze(): void;
  /**
   * What the server sends from now on is held, not delivered: answers to what the client sent
   * before it was stopped wait in the stopped process's socket. The client's writes still go out.
   */
  holdAnswers(): void;
  /** Forwards what was held both ways, in order, and what comes next (the process was continued). */
  thaw(): void;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:port to 127.0.0.1:upstreamPort until frozen. */
export async function freezableProxy(upstreamPort: number): Promise<FreezableProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket; held: Buffer[]; answers: Buffer[] }>();
  let frozen = false;
  let holding = false;
  const server = createServer((client) => {
    if (frozen) return void client.destroy();
    const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
    const pair = { client, upstream, held: [] as Buffer[], answers: [] as Buffer[] };
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
    client.on('data', (chunk: Buffer) => (frozen ? pair.held.push(chunk) : upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => (holding ? pair.answers.push(chunk) : client.write(chunk)));
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    freeze() {
      frozen = true;
    },
    holdAnswers() {
      holding = true;
    },
    thaw() {
      frozen = false;
      holding = false;
      for (const pair of pairs) {
        for (const chunk of pair.held.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.answers.splice(0)) pair.client.write(chunk);
      }
    },
    close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
