import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshDataDirectory } from './embedded-database.js';

const MAIN = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));

export interface ChildHub {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM, then resolves with the exit code (SIGKILL after `killAfterMs`). */
  stop(killAfterMs?: number): Promise<number | null>;
}

/** The built gateway's entry, for `startChildHub(args, env, timeout, GATEWAY_MAIN)`. */
export const GATEWAY_MAIN = fileURLToPath(new URL('../../dist/src/gateway.js', import.meta.url));

/** Runs the built hub (or another entry on the same host) as a real process and resolves once it logged `listening` with its URL. */
export function startChildHub(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 15_000,
  main = MAIN,
): Promise<ChildHub> {
  // Each hub process its own embedded database (one process per directory), unless the test picks one.
  const data = main === MAIN && env.Database__DataDirectory === undefined ? freshDataDirectory() : undefined;
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, ...(data ? { Database__DataDirectory: data.path } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (data) void exited.then(() => data.remove());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hub did not log listening within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // JSON ({"url":"http://…"}) in Production, pretty (url: "http://…") in Development.
      const m = /"?url"?:\s*"(http:\/\/[^"]+)"/.exec(out.slice(out.indexOf('listening')));
      if (out.includes('listening') && m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
        resolve({
          child,
          url: m[1]!.replace('localhost', '127.0.0.1'),
          output: () => out,
          stop: async (killAfterMs = 10_000) => {
            if (child.exitCode !== null) return child.exitCode;
            child.kill('SIGTERM');
            const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
            const code = await exited;
            clearTimeout(kill);
            return code;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code} before listening:\n${out}`));
    });
  });
}
