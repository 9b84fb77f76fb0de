import type { Logger } from 'pino';
import { ConfigError, type ConfigInputs } from './config/load-config.js';
import type { HostConfig } from './config/host-config.js';
import { HostStartError, type Host } from './lifecycle/host.js';
import { createRootLogger } from './logging.js';

/** Exit codes the process ends with (documented in the README). */
export const ExitCode = {
  ok: 0,
  /** A hosted service failed, or work was abandoned at the shutdown timeout. */
  failure: 1,
  /** Start-up stopped on a missing or bad configuration value (sysexits EX_CONFIG). */
  config: 78,
} as const;

export interface Composed {
  host: Host;
}

/**
 * The process around a host: resolve configuration once (with the app's loader, which composes
 * every area's keys), compose, start, and stop on SIGTERM or SIGINT within the shutdown timeout.
 * A second signal exits at once.
 */
export async function runMain<C extends HostConfig>(
  loadConfig: (inputs: ConfigInputs) => C,
  compose: (config: C, log: Logger) => Composed | Promise<Composed>,
): Promise<void> {
  let config: C;
  try {
    config = loadConfig({ args: process.argv.slice(2), env: process.env, contentRoot: process.cwd() });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`telemetry-hub: ${err.message}\n`);
    process.exit(ExitCode.config);
  }
  const log = createRootLogger(config);
  log.info({ environment: config.environment }, 'starting');
  log.debug({ config: config.describe() }, 'configuration');
  for (const key of config.unknownKeys) log.warn({ key }, 'unknown configuration key');

  let host: Host;
  try {
    ({ host } = await compose(config, log));
  } catch (err) {
    log.fatal({ err }, 'composition failed');
    process.exit(ExitCode.failure);
  }

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      log.warn({ signal }, 'second signal; exiting now');
      process.exit(ExitCode.failure);
    }
    log.info({ signal }, 'stop signal received');
    void host.stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const stopped = new Promise<number>((resolve) => {
    host.lifetime.onStopping(() => {
      void host.stop().then((result) => resolve(result.abandoned.length > 0 || result.failure !== undefined ? ExitCode.failure : ExitCode.ok));
    });
  });

  try {
    await host.start();
  } catch (err) {
    log.fatal({ err: err instanceof HostStartError ? err.cause : err, service: (err as HostStartError).service }, 'start failed');
    process.exit(ExitCode.failure);
  }
  const code = await stopped;
  // Work abandoned at the timeout may still hold the event loop: exit regardless.
  process.exit(code);
}
