import { pino, type Logger, type LevelWithSilent } from 'pino';
import pretty from 'pino-pretty';
import type { HostConfig } from './config/host-config.js';
import { createScrubber } from './config/redact-secrets.js';

export type { Logger };

const SECRET_KEYS = [
  'token',
  'accessToken',
  'access_token',
  'authorization',
  'cookie',
  'password',
  'secret',
  'connectionString',
];

/**
 * Paths pino blanks in a log object: secrets never reach a log. Top level and one level down
 * (`{ client: { token } }`, `{ headers: { authorization } }`), plus a request's headers.
 */
const REDACT = [...SECRET_KEYS, ...SECRET_KEYS.map((k) => `*.${k}`), 'req.headers.authorization', 'req.headers.cookie'];

/**
 * The root logger: JSON lines in Production and Staging, readable lines in Development.
 * `destination` lets tests capture output.
 */
export function createRootLogger(
  config: Pick<HostConfig, 'isDevelopment' | 'logging'> & Partial<Pick<HostConfig, 'secrets'>>,
  destination?: NodeJS.WritableStream,
): Logger {
  // Field paths catch secrets we can name; the scrubber catches the configured secret values (and
  // connection-string passwords) wherever else they turn up, e.g. inside a library's error message.
  const scrub = createScrubber(config.secrets ?? []);
  const tap: LogTap = { forward: undefined };
  const options = {
    level: config.logging.defaultLevel,
    base: undefined,
    redact: { paths: REDACT, censor: '[redacted]' },
    hooks: {
      streamWrite: (line: string) => {
        const out = scrub(line);
        tap.forward?.(out);
        return out;
      },
    },
  };
  const root = createLogger(config, options, destination);
  taps.set(root, tap);
  return root;
}

interface LogTap {
  forward: ((line: string) => void) | undefined;
}

const taps = new WeakMap<Logger, LogTap>();

/**
 * Hands every line the root logger writes (redacted and scrubbed, as JSON) to `forward` as well,
 * e.g. to export it as an OpenTelemetry log record. False when `root` is not a root logger made here.
 */
export function forwardLogLines(root: Logger, forward: (line: string) => void): boolean {
  const tap = taps.get(root);
  if (tap === undefined) return false;
  tap.forward = forward;
  return true;
}

function createLogger(
  config: Pick<HostConfig, 'isDevelopment' | 'logging'>,
  options: pino.LoggerOptions<never>,
  destination: NodeJS.WritableStream | undefined,
): Logger {
  if (config.isDevelopment && !destination) {
    // In-process pretty printing (no worker thread): start-up and shutdown lines are never lost.
    return pino(
      options,
      pretty({ colorize: process.stdout.isTTY, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' }),
    );
  }
  if (destination) return pino(options, destination);
  // Asynchronous stdout: lines written while a write is in flight go out together, so one request
  // line no longer costs one write syscall under load (bench/), and an idle hub still writes each
  // line at once. pino flushes it synchronously when the process exits.
  return pino(options, pino.destination({ dest: 1, sync: false }));
}

/**
 * A logger for one category (e.g. `Host`, `Ingestion.Mqtt`). The most specific
 * `Logging:LogLevel:<prefix>` wins, as in .NET: `Ingestion` covers `Ingestion.Mqtt`.
 */
export function categoryLogger(root: Logger, config: Pick<HostConfig, 'logging'>, category: string): Logger {
  const level = levelFor(config.logging.categories, category) ?? config.logging.defaultLevel;
  return root.child({ category }, { level: level as LevelWithSilent });
}

function levelFor(levels: Readonly<Record<string, string>>, category: string): string | undefined {
  let best: string | undefined;
  let bestLength = -1;
  const lower = category.toLowerCase();
  for (const [prefix, level] of Object.entries(levels)) {
    const p = prefix.toLowerCase();
    if ((lower === p || lower.startsWith(p + '.')) && p.length > bestLength) {
      best = level;
      bestLength = p.length;
    }
  }
  return best;
}
