import { createServer } from 'node:net';
import { portOpen } from '../harness/port-open.js';

/** A free port on 127.0.0.1, chosen by the kernel. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once 127.0.0.1:`port` accepts connections; rejects after `timeoutMs` or when `gone()` says the server died. */
export async function waitForPort(port: number, what: string, timeoutMs = 20_000, gone = () => false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await portOpen(port, 500))) {
    if (gone()) throw new Error(`${what} exited before it listened on ${port}`);
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
