import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../host/clock.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { IngestLease } from './ingest-lease.js';

/** A partition's lease as the balancer sees it. */
export interface PartitionLease extends IngestLease {
  readonly partition: number;
  /** Stops ingesting under it and frees it for another instance. */
  release(): Promise<void>;
}

/** The instances sharing ingestion. */
export interface Membership {
  /** Marks this instance alive; resolves to how many are, this one included. */
  beat(): Promise<number>;
  /** Leaves at once, so the others take over this instance's share. */
  leave(): Promise<void>;
}

export interface PartitionBalancerOptions {
  leases: readonly PartitionLease[];
  membership: Membership;
  /** How often to beat and rebalance (the leases' renew interval suits). */
  intervalMs: number;
  clock: Clock;
  log: Logger;
}

/**
 * Spreads the ingest partitions over the live instances: each claims free partitions while it
 * holds fewer than its share (the count of partitions over the count of instances, rounded up)
 * and hands one on per interval while it holds more. A new instance thus gets partitions from the
 * others, and a stopped one's go to the rest once its leases are free (at once when it stopped
 * cleanly, a lease term after it crashed).
 */
export class PartitionBalancer implements HostedService {
  readonly name = 'ingest-partitions';
  readonly #o: PartitionBalancerOptions;
  #share: number;
  #timer: TimerHandle | undefined;
  #stopped = false;
  #beating: Promise<void> | undefined;

  constructor(options: PartitionBalancerOptions) {
    this.#o = options;
    // Until the first beat answers: alone, so a lone instance takes every partition at once.
    this.#share = options.leases.length;
  }

  /** Whether this instance may claim another partition (the leases' `wants`). */
  readonly wants = (): boolean => this.held() < this.#share;

  /** How many partitions this instance holds. */
  held(): number {
    return this.#o.leases.filter((lease) => lease.held).length;
  }

  /** This instance's share as last computed. */
  get share(): number {
    return this.#share;
  }

  async start(): Promise<void> {
    await this.#beat();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    await this.#beating;
    await this.#o.membership.leave();
  }

  #beat(): Promise<void> {
    this.#beating = this.#o.membership
      .beat()
      .then(
        async (instances) => {
          const share = Math.ceil(this.#o.leases.length / Math.max(1, instances));
          if (share !== this.#share) this.#o.log.info({ instances, share }, 'ingest partitions: share changed');
          this.#share = share;
          const held = this.#o.leases.filter((lease) => lease.held);
          if (held.length > share && !this.#stopped) {
            const handed = held[held.length - 1]!;
            this.#o.log.info({ partition: handed.partition, held: held.length, share }, 'ingest partition handed on');
            await handed.release();
          }
        },
        // Redis away: keep the share; the leases lapse by themselves if it stays away.
        (err: Error) => this.#o.log.warn({ err: { message: err.message } }, 'ingest partitions: membership not read'),
      )
      .finally(() => {
        if (this.#stopped) return;
        this.#timer = this.#o.clock.setTimeout(() => void this.#beat(), this.#o.intervalMs);
        this.#timer.unref?.();
      });
    return this.#beating;
  }
}
