import type { Logger } from 'pino';
import { ConfigError, type ConfigInputs } from './config/load-config.js';
import type { HostConfig } from './config/host-config.js';
import { HostStartError, type Host } from './lifecycle/host.js';
import { createRootLogger } from './logging.js';
import { commandLine, ExitCode } from './command-line.js';
import { ENVIRONMENTS } from './config/key-definition.js';

export { ExitCode };

/**
 * The usage of a hosted process (hub, worker, gateway): it takes only the configuration's
 * arguments, besides `--help` and `--version`.
 */
export function hostUsage(invocation: string, what: string): string {
  return `usage: ${invocation} [--environment ${ENVIRONMENTS.join('|')}] [--Section:Key=value ...]

${what}
Configured from appsettings.json, appsettings.{Environment}.json, Section__Key environment
variables and --Section:Key=value arguments, in that order (docs/configuration.md).
  --environment  the environment (default: HUB_ENVIRONMENT, else Production)
  --help         prints this and exits
  --version      prints the version and exits
Exit codes: 0 stopped cleanly, 1 a service failed, 64 a bad command line, 78 a bad configuration value.`;
}

export interface Composed {
  host: Host;
}

/**
 * The process around a host: read the command line, resolve configuration once (with the app's loader, which composes
 * every area's keys), compose, start, and stop on SIGTERM or SIGINT within the shutdown timeout.
 * A second signal exits at once.
 */
export async function runMain<C extends HostConfig>(
  command: { name: string; usage: string },
  loadConfig: (inputs: ConfigInputs) => C,
  compose: (config: C, log: Logger) => Composed | Promise<Composed>,
): Promise<void> {
  // Before anything else: --help and --version have no side effect, a bad flag starts nothing.
  const { configArgs } = commandLine({ ...command, options: {}, configArgs: true });
  let config: C;
  try {
    config = loadConfig({ args: configArgs, env: process.env, contentRoot: process.cwd() });
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
    // The service container's validation (a missing registration, a singleton holding a scoped service).
    if (err instanceof ConfigError) {
      log.fatal({ problems: err.problems }, 'composition failed: configuration');
      process.stderr.write(`telemetry-hub: ${err.message}\n`);
      process.exit(ExitCode.config);
    }
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
      void host
        .stop()
        .then((result) =>
          resolve(result.abandoned.length > 0 || result.failure !== undefined ? ExitCode.failure : ExitCode.ok),
        );
    });
  });

  try {
    await host.start();
  } catch (err) {
    // A service that found its configuration unusable only when it tried (a port in use).
    if (err instanceof HostStartError && err.cause instanceof ConfigError) {
      log.fatal({ service: err.service, problems: err.cause.problems }, 'start failed: configuration');
      process.stderr.write(`telemetry-hub: ${err.cause.message}\n`);
      process.exit(ExitCode.config);
    }
    log.fatal(
      { err: err instanceof HostStartError ? err.cause : err, service: (err as HostStartError).service },
      'start failed',
    );
    process.exit(ExitCode.failure);
  }
  const code = await stopped;
  // Work abandoned at the timeout may still hold the event loop: exit regardless.
  process.exit(code);
}
