import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { AppConfig } from '../../../src/compose/app-config.js';
import { createRootLogger } from '../../../src/host/logging.js';

export type LogLine = Record<string, unknown> & { msg?: string; level: number };

/** A root logger (JSON, as outside Development) whose lines the test can read. */
export function captureLog(
  config: Pick<AppConfig, 'logging'> = { logging: { defaultLevel: 'info', categories: {} } },
): {
  log: Logger;
  /** The lines written so far, parsed. */
  logs: () => LogLine[];
  text: () => string;
} {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(chunk.toString());
      done();
    },
  });
  const log = createRootLogger({ isDevelopment: false, logging: config.logging }, destination);
  return {
    log,
    logs: () =>
      raw
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogLine),
    text: () => raw.join(''),
  };
}
