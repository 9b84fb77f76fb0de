import { systemClock, type Clock, type TimerHandle } from '../../host/clock.js';
import type { ReadingPublisher } from './publisher.js';
import { ReadingGenerator } from './reading-generator.js';

export interface SimulatorOptions {
  tenant: string;
  devices: number;
  /** Readings per device per second. */
  rate: number;
  publisher: ReadingPublisher;
  /** Wall time for readings and due times, and the tick timer; default the system clock. */
  clock?: Clock;
  random?: () => number;
  onError?: (err: unknown) => void;
}

/** `sim-001`, `sim-002`, … (contract). */
export function simulatorDeviceId(index: number): string {
  return `sim-${String(index + 1).padStart(3, '0')}`;
}

/**
 * Publishes readings for N devices at a steady rate with ±10 % jitter per device, until the signal
 * aborts. One timer for all devices, so thousands of simulated devices cost one timer.
 */
export async function runSimulator(options: SimulatorOptions, signal: AbortSignal): Promise<number> {
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  const random = options.random ?? Math.random;
  const periodMs = 1000 / options.rate;
  const devices = Array.from({ length: options.devices }, (_, i) => ({
    id: simulatorDeviceId(i),
    generator: new ReadingGenerator(i, random),
    // Start spread over one period so devices do not publish in one burst.
    due: now() + random() * periodMs,
  }));
  const tickMs = Math.max(1, Math.min(50, periodMs / 4));
  let sent = 0;
  await new Promise<void>((resolve) => {
    let timer: TimerHandle | undefined;
    const tick = (): void => {
      timer = clock.setTimeout(tick, tickMs);
      const t = now();
      for (const d of devices) {
        if (d.due > t) continue;
        d.due = Math.max(d.due + periodMs * (0.9 + random() * 0.2), t - periodMs);
        try {
          const pending = options.publisher.publish(options.tenant, d.id, d.generator.next(t));
          if (pending) pending.catch((err: unknown) => options.onError?.(err));
          sent++;
        } catch (err) {
          options.onError?.(err);
        }
      }
    };
    timer = clock.setTimeout(tick, tickMs);
    const stop = () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      resolve();
    };
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
  });
  return sent;
}
