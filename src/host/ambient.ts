import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@opentelemetry/api';

/** What a request or a queue message carries into everything it awaits or schedules. */
export interface Ambient {
  readonly tenantId: string | undefined;
  /** The sampled trace the work belongs to; undefined when it is not traced. */
  readonly trace: Context | undefined;
}

/**
 * One AsyncLocalStorage for the tenant and the trace together: a second storage would be a second
 * `run` per request. Entered only where a tenant is known or a sampled span exists, so an untraced
 * anonymous request never enters it (on Node 20 each `run` costs promise-hook work: bench/).
 */
export const ambient = new AsyncLocalStorage<Ambient>();
