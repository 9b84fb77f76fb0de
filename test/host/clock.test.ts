import { systemClock } from '../../src/host/clock.js';
import { runClockContract } from './clock.case.js';

// The process's clock: the time really passes (a few tens of ms per case), then the turn's timers run.
runClockContract('systemClock', () => ({
  clock: systemClock,
  elapse: async (ms) => {
    const until = systemClock.monotonicNow() + ms;
    while (systemClock.monotonicNow() < until)
      await new Promise<void>((resolve) =>
        setTimeout(resolve, Math.max(1, Math.ceil(until - systemClock.monotonicNow()))),
      );
    await new Promise<void>((resolve) => setImmediate(resolve));
  },
}));
