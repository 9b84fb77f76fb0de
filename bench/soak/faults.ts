import { SOAK } from './config.js';
import type { HubSlot } from './hubs.js';
import type { PlannedFault } from './schedule.js';
import type { ServerProcess } from './server-process.js';
import type { PrivatePostgres } from './services.js';
import type { CuttableProxy } from './tcp-proxy.js';

/** What the soak can break. */
export interface Cluster {
  slots: HubSlot[];
  redis: ServerProcess;
  broker: ServerProcess;
  postgres: PrivatePostgres;
  /** One per proxied subscriber. */
  proxies: CuttableProxy[];
}

/** A fault as it happened: when it began and ended (ms, epoch), on what. */
export interface DoneFault {
  planned: PlannedFault;
  startedAt: number;
  endedAt: number;
  target: string;
  note: string;
}

/** How long a paused lease holder stays stopped: past its lease, so a standby must take over. */
export const STOP_MS = SOAK.leaseSeconds * 1000 + 3000;
/** How long a subscriber's connection stays cut. */
export const CUT_MS = 20_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The instance that holds the ingest lease, waiting up to 10 s for one (after a fault, the lease may be between holders). */
async function leaseHolder(slots: readonly HubSlot[]): Promise<HubSlot | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const holder = slots.find((s) => s.holdsLease());
    if (holder || Date.now() > deadline) return holder;
    await sleep(200);
  }
}

/**
 * Injects one fault and resolves when it is over: the restarted process listens again, the paused
 * one was continued, the cut ended. Recovery is measured from `endedAt`.
 */
export async function inject(planned: PlannedFault, cluster: Cluster): Promise<DoneFault> {
  const startedAt = Date.now();
  const done = (target: string, note = '') => ({ planned, startedAt, endedAt: Date.now(), target, note });
  switch (planned.kind) {
    case 'kill-hub': {
      const slot = cluster.slots[planned.target]!;
      const wasHolder = slot.holdsLease();
      slot.signal('SIGKILL');
      await slot.exited();
      // Ended at the kill: the restart is part of the recovery.
      const ended = Date.now();
      await slot.start();
      return { ...done(`h${slot.slot}`, wasHolder ? 'was the lease holder' : ''), endedAt: ended };
    }
    case 'stop-lease-holder': {
      const slot = await leaseHolder(cluster.slots);
      if (!slot) return done('–', 'no lease holder found: skipped');
      slot.signal('SIGSTOP');
      await sleep(STOP_MS);
      slot.signal('SIGCONT');
      return done(`h${slot.slot}`, `stopped ${(STOP_MS / 1000).toFixed(0)} s`);
    }
    case 'restart-redis':
      // A crash: Redis comes back empty (no persistence), lease, seq counters and all.
      await cluster.redis.stop('SIGKILL');
      await cluster.redis.start();
      return done('redis', 'SIGKILL, restarted empty');
    case 'restart-broker':
      // A clean stop: Mosquitto saves what it acknowledged and the hub's session.
      await cluster.broker.stop('SIGTERM');
      await cluster.broker.start();
      return done('mosquitto', 'SIGTERM, restarted with its sessions');
    case 'restart-postgres':
      await cluster.postgres.restart();
      return done('postgresql', 'pg_ctl restart -m fast');
    case 'cut-subscriber': {
      const proxy = cluster.proxies[planned.target]!;
      proxy.cut(CUT_MS);
      await sleep(CUT_MS);
      return done(`proxied subscriber ${planned.target}`, `reset, refused ${CUT_MS / 1000} s`);
    }
  }
}
