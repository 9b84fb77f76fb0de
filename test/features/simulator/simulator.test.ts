import { describe, expect, it } from 'vitest';
import { ReadingGenerator } from '../../../src/features/simulator/reading-generator.js';
import { runSimulator, simulatorDeviceId } from '../../../src/features/simulator/simulator.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { readCommandLine } from '../../../src/host/command-line.js';
import { SIMULATOR_COMMAND, toSimulatorArgs } from '../../../src/simulator/simulator-args.js';

/** The simulator's command line as its entry reads it; a usage exit throws its message. */
function parseSimulatorArgs(argv: string[]) {
  const line = readCommandLine(SIMULATOR_COMMAND, argv);
  if (line.kind === 'exit') throw new Error(line.stderr);
  return toSimulatorArgs(line.values);
}

describe('simulator', () => {
  it('names devices sim-001, sim-002, … as the contract says', () => {
    expect([0, 1, 9, 99].map(simulatorDeviceId)).toEqual(['sim-001', 'sim-002', 'sim-010', 'sim-100']);
  });

  it('generates plausible readings that move over the day, with occasional spikes', () => {
    const gen = new ReadingGenerator(0);
    const day = Array.from({ length: 24 * 60 }, (_, m) => gen.next(Date.UTC(2026, 10, 22) + m * 60_000));
    const temps = day.map((r) => r.temperature);
    expect(Math.min(...temps)).toBeGreaterThan(5);
    expect(Math.max(...temps)).toBeLessThan(45);
    expect(Math.max(...temps) - Math.min(...temps)).toBeGreaterThan(5); // a daily swing, not a flat line
    expect(day.every((r) => r.humidity >= 0 && r.humidity <= 100)).toBe(true);
    const spikes = temps.filter((t, i) => i > 0 && t - temps[i - 1]! > 3).length;
    expect(spikes).toBeGreaterThan(0);
    expect(spikes).toBeLessThan(60);
  });

  it('publishes at the requested rate per device, spread over devices', async () => {
    const sent = new Map<string, number>();
    const controller = new AbortController();
    const clock = new ManualClock();
    const running = runSimulator(
      {
        tenant: 'demo',
        devices: 5,
        rate: 10,
        publisher: { publish: (_t, d) => void sent.set(d, (sent.get(d) ?? 0) + 1), close: async () => undefined },
        clock,
      },
      controller.signal,
    );
    clock.advance(1000);
    controller.abort();
    const total = await running;
    expect([...sent.keys()].sort()).toEqual(['sim-001', 'sim-002', 'sim-003', 'sim-004', 'sim-005']);
    // 10/s for 1 s each, with jitter and a random start within the first period.
    for (const count of sent.values()) expect(count).toBeGreaterThanOrEqual(7), expect(count).toBeLessThanOrEqual(12);
    expect(total).toBe([...sent.values()].reduce((a, b) => a + b, 0));
  });

  it('parses the contract flags and names the bad one', () => {
    expect(
      parseSimulatorArgs(['--url', 'mqtt://127.0.0.1:1884', '--tenant', 't1', '--devices', '3', '--rate', '2']),
    ).toMatchObject({
      url: 'mqtt://127.0.0.1:1884',
      tenant: 't1',
      devices: 3,
      rate: 2,
    });
    expect(() => parseSimulatorArgs(['--url', 'mqtt://x', '--devices', 'lots'])).toThrow(/--devices/);
    expect(() => parseSimulatorArgs(['--url', 'mqtt://x', '--rate', '0'])).toThrow(/--rate/);
    expect(() => parseSimulatorArgs(['--devices', '3'])).toThrow(/--url or --eventhubs/);
    expect(() => parseSimulatorArgs(['--url', 'http://x'])).toThrow(/MQTT URL/);
    expect(() => parseSimulatorArgs(['--url', 'mqtt://x', '--tenant', 'bad tenant'])).toThrow(/--tenant/);
  });
});
