import { ConfigError } from '../config/load-config.js';

/**
 * The registrations cannot work (a dependency nobody registered, a singleton holding a scoped
 * service, a cycle): found when the container is built, so start-up stops with exit 78 naming the
 * services instead of a request failing later.
 */
export class ContainerValidationError extends ConfigError {
  constructor(problems: readonly string[]) {
    super(problems.map((p) => `service container: ${p}`));
    this.name = 'ContainerValidationError';
  }
}
