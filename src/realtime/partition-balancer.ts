import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../host/clock.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { IngestLease } from './ingest-lease.js';

/** A partition's lease as the balancer sees it. */
export interface PartitionLease extends IngestLease {
  readonly partition: number;
  /** Stops ingesting under it and, once its source stopped, frees it for another instance. */
  release(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The instances sharing ingestion. */
export interface Membership {
  /** This instance's id among the members. */
  readonly id: string;
  /** Marks this instance alive; resolves to the ids of the live members, this one included. */
  beat(): Promise<readonly string[]>;
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
 * Spreads the ingest partitions over the live instances and runs their leases. Each instance's
 * share follows from the members alone, so all agree without talking: P partitions over N members
 * sorted by id give the first P mod N members ⌊P ÷ N⌋ + 1 and the rest ⌊P ÷ N⌋. An instance
 * claims free partitions while it holds (or is claiming) fewer than its share, and hands on what it
 * holds above it at each beat. A new member thus gets its share from the others within a beat or
 * two; one that stops cleanly leaves the members first, then frees its leases, and the others
 * take its partitions at their next claim; one that crashes or hangs stops beating, and its
 * partitions move once its leases run out.
 */
export class PartitionBalancer implements HostedService {
  readonly name = 'ingest-partitions';
  readonly #o: PartitionBalancerOptions;
  #share: number;
  /** Claims asked and not answered yet: counted with the held ones, so a burst of claims cannot overshoot the share. */
  #claiming = 0;
  #timer: TimerHandle | undefined;
  #stopped = false;
  #beating: Promise<void> | undefined;

  constructor(options: PartitionBalancerOptions) {
    this.#o = options;
    // Until the first beat answers: alone, so a lone instance takes every partition at once.
    this.#share = options.leases.length;
  }

  /**
   * A lease's permission to claim (its `claimSlot`): undefined when this instance has its share,
   * else the function to call once the claim was answered.
   */
  readonly claimSlot = (): (() => void) | undefined => {
    if (this.#stopped || this.held() + this.#claiming >= this.#share) return undefined;
    this.#claiming++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#claiming--;
    };
  };

  /** How many partitions this instance holds. */
  held(): number {
    return this.#o.leases.filter((lease) => lease.held).length;
  }

  /** This instance's share as last computed. */
  get share(): number {
    return this.#share;
  }

  /** The first beat (so the leases claim no more than the share), then the leases. */
  async start(): Promise<void> {
    await this.#beat();
    for (const lease of this.#o.leases) await lease.start();
  }

  /** Leaves the members first, so the others count without this instance by the time its leases are free. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    await this.#beating;
    await this.#o.membership.leave();
    await Promise.all(this.#o.leases.map((lease) => lease.stop()));
  }

  #beat(): Promise<void> {
    const { membership, leases, log } = this.#o;
    this.#beating = membership
      .beat()
      .then(
        async (members) => {
          const sorted = [...members].sort();
          const rank = sorted.indexOf(membership.id);
          const n = Math.max(1, sorted.length);
          const share = Math.floor(leases.length / n) + ((rank === -1 ? n : rank) < leases.length % n ? 1 : 0);
          if (share !== this.#share) log.info({ instances: n, share }, 'ingest partitions: share changed');
          this.#share = share;
          const held = leases.filter((lease) => lease.held);
          if (held.length > share && !this.#stopped) {
            const handed = held.slice(share);
            log.info({ partitions: handed.map((l) => l.partition), share }, 'ingest partitions handed on');
            await Promise.all(handed.map((lease) => lease.release()));
          }
        },
        // Redis away: keep the share; the leases lapse by themselves if it stays away.
        (err: Error) => log.warn({ err: { message: err.message } }, 'ingest partitions: membership not read'),
      )
      .finally(() => {
        if (this.#stopped) return;
        this.#timer = this.#o.clock.setTimeout(() => void this.#beat(), this.#o.intervalMs);
        this.#timer.unref?.();
      });
    return this.#beating;
  }
}
