import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { io, type Socket } from 'socket.io-client';
import { composeApplication } from '../../src/compose/compose-application.js';
import type { Application } from '../../src/compose/application.js';
import type { Clock } from '../../src/host/clock.js';
import { loadConfig } from '../../src/compose/load-app-config.js';
import { createRootLogger } from '../../src/host/logging.js';
import { signUserToken } from '../../src/host/security/jwt-bearer.js';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../src/host/security/dev-defaults.js';
import { freshDataDirectory } from './embedded-database.js';

export interface RunningApp {
  app: Application;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The embedded broker's URL, when no external broker was configured. */
  brokerUrl: string | undefined;
  /** Every log line as parsed JSON. */
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/**
 * Starts the whole application in this process on ephemeral ports (HTTP and embedded broker),
 * Development defaults, no simulator unless asked. `args` are `--Section:Key=value` overrides;
 * `extend` adds endpoints or services before the host is built (composeApplication's `extend`);
 * `clock` replaces the system clock (a ManualClock for tests that move time themselves).
 */
export async function startApp(
  args: string[] = [],
  extend?: (app: Application, log: Logger) => void,
  clock?: Clock,
): Promise<RunningApp> {
  // Its own copy of the migrated embedded database, unless the test picks a directory or a server.
  const data = args.some((a) => /^--(Database:DataDirectory|ConnectionStrings:postgres)=/i.test(a))
    ? undefined
    : freshDataDirectory();
  const config = loadConfig({
    args: [
      '--Http:Port=0',
      '--Http:Host=127.0.0.1',
      '--Ingestion:Mqtt:EmbeddedPort=0',
      '--Simulator:Devices=0',
      ...(data ? [`--Database:DataDirectory=${data.path}`] : []),
      ...args,
    ],
    env: { HUB_ENVIRONMENT: 'Development' },
    contentRoot: mkdtempSync(join(tmpdir(), 'hub-test-')),
  });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = createRootLogger(config, sink);
  const app = composeApplication(config, log, extend && ((a) => extend(a, log)), clock);
  try {
    await app.host.start();
  } catch (err) {
    data?.remove();
    throw err;
  }
  const port = new URL(app.server.url!).port;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    brokerUrl: app.telemetry.broker?.url,
    logs,
    stop: async () => {
      await app.host.stop();
      data?.remove();
    },
  };
}

export function userToken(
  tenantId: string,
  options: { sub?: string; roles?: string[]; expiresInSeconds?: number } = {},
): Promise<string> {
  return signUserToken({
    sub: options.sub ?? `user-${tenantId}`,
    tenantId,
    roles: options.roles ?? [],
    secret: DEV_JWT_SECRET,
    issuer: DEV_JWT_ISSUER,
    audience: DEV_JWT_AUDIENCE,
    expiresInSeconds: options.expiresInSeconds ?? 3600,
  });
}

/** A connected socket.io client in the telemetry namespace; rejects with the connect_error. */
export function connectTelemetry(url: string, token: string | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(`${url}/telemetry`, {
      auth: token ? { token } : {},
      transports: ['websocket'],
      reconnection: false,
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

/** Resolves when `predicate` holds (it may ask a database or a store), polling every 10 ms; rejects after `timeoutMs`. */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
