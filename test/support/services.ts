import { connect } from 'node:net';

/** Is something listening on 127.0.0.1:port? */
export function reachable(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Tests of real integrations need the real service. Without it they skip with a clear message on a
 * developer's machine; under CI=true a missing service is a failure, never a silent skip.
 */
export async function requireService(name: string, port: number): Promise<boolean> {
  if (await reachable(port)) return true;
  const message = `${name} is not reachable on 127.0.0.1:${port}`;
  if (process.env.CI === 'true') throw new Error(`${message} (required under CI)`);
  console.warn(`skipping: ${message}`);
  return false;
}
