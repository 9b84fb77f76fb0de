/** What the soak does to the cluster; see README.md, "The faults". */
export type FaultKind =
  | 'kill-hub'
  | 'stop-lease-holder'
  | 'restart-redis'
  | 'restart-broker'
  | 'restart-postgres'
  | 'cut-subscriber';

export const FAULT_KINDS: readonly FaultKind[] = [
  'kill-hub',
  'stop-lease-holder',
  'restart-redis',
  'restart-broker',
  'restart-postgres',
  'cut-subscriber',
];

export interface PlannedFault {
  /** Seconds after the soak's start. */
  at: number;
  kind: FaultKind;
  /** Which hub (kill-hub) or which proxied subscriber (cut-subscriber); 0 otherwise. */
  target: number;
}

/** Faults start this many seconds apart. */
export const FAULT_INTERVAL_SECONDS = 30;

/** mulberry32: a small seeded generator, the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * One fault every 30 s from 30 s on, the last at least 30 s before the end. Kinds come from a
 * shuffled bag of all six, refilled when empty, so every kind comes up once in each six faults.
 */
export function faultSchedule(
  seed: number,
  minutes: number,
  counts: { hubs: number; proxied: number },
): PlannedFault[] {
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const faults: PlannedFault[] = [];
  let bag: FaultKind[] = [];
  for (let at = FAULT_INTERVAL_SECONDS; at <= minutes * 60 - FAULT_INTERVAL_SECONDS; at += FAULT_INTERVAL_SECONDS) {
    if (bag.length === 0) {
      bag = [...FAULT_KINDS];
      for (let i = bag.length - 1; i > 0; i--) {
        const j = pick(i + 1);
        [bag[i], bag[j]] = [bag[j]!, bag[i]!];
      }
    }
    const kind = bag.pop()!;
    const target = kind === 'kill-hub' ? pick(counts.hubs) : kind === 'cut-subscriber' ? pick(counts.proxied) : 0;
    faults.push({ at, kind, target });
  }
  return faults;
}
