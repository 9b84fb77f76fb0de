import { describe, expect, it } from 'vitest';
import { Host, HostStartError } from '../../src/host/lifecycle/host.js';
import { captureLog } from './support/capture-log.js';
import { recordingService, RecordingWorker } from './support/recording-services.js';

function newHost(trace: string[], shutdownTimeoutMs = 5000) {
  const { log, logs } = captureLog();
  const host = new Host({ logger: log, shutdownTimeoutMs });
  host.lifetime.onStarted(() => void trace.push(`ApplicationStarted (${host.state})`));
  host.lifetime.onStopping(() => void trace.push(`ApplicationStopping (${host.state})`));
  host.lifetime.onStopped(() => void trace.push(`ApplicationStopped (${host.state})`));
  return { host, logs };
}

describe('host lifecycle', () => {
  it('stopped → starting: services start in registration order; → serving: ApplicationStarted, background execute running', async () => {
    const trace: string[] = [];
    const { host } = newHost(trace);
    const states: string[] = [];
    host
      .add(recordingService('a', trace))
      .add(new RecordingWorker('worker', trace))
      .add({
        name: 'probe',
        start: async () => void states.push(host.state),
        stop: async () => undefined,
      });
    expect(host.state).toBe('stopped');

    await host.start();

    expect(states).toEqual(['starting']);
    expect(host.state).toBe('serving');
    expect(trace).toEqual(['start a', 'execute worker', 'ApplicationStarted (serving)']);
  });

  it('serving → stopping → stopped: ApplicationStopping, services stop in reverse order each seeing its stop, then ApplicationStopped', async () => {
    const trace: string[] = [];
    const { host } = newHost(trace);
    host
      .add(new RecordingWorker('first', trace))
      .add(recordingService('middle', trace))
      .add(new RecordingWorker('last', trace));
    await host.start();
    trace.length = 0;

    const result = await host.stop();

    expect(result).toEqual({ abandoned: [], failure: undefined });
    expect(host.state).toBe('stopped');
    expect(trace).toEqual([
      'ApplicationStopping (stopping)',
      'last saw stopping',
      'stop middle',
      'first saw stopping',
      'ApplicationStopped (stopped)',
    ]);
  });

  it('the shutdown timeout abandons work still running: the stop signal aborts, the rest is reported, ApplicationStopped is still raised', async () => {
    const trace: string[] = [];
    const { host, logs } = newHost(trace, 50);
    host
      .add(recordingService('db', trace))
      .add(recordingService('stuck', trace, { hangStop: true }))
      .add(recordingService('server', trace));
    await host.start();
    trace.length = 0;

    const result = await host.stop();

    expect(result.abandoned).toEqual(['stuck', 'db']);
    expect(trace).toEqual([
      'ApplicationStopping (stopping)',
      'stop server',
      'stop stuck',
      'stuck saw its stop signal abort',
      'ApplicationStopped (stopped)',
    ]);
    expect(logs().find((l) => l.msg === 'shutdown timeout expired; abandoning work')).toMatchObject({
      abandoned: ['stuck', 'db'],
    });
  });

  it('stop is idempotent: a second signal gets the same outcome', async () => {
    const trace: string[] = [];
    const { host } = newHost(trace);
    host.add(recordingService('a', trace));
    await host.start();

    const [first, second] = await Promise.all([host.stop(), host.stop()]);

    expect(second).toBe(first);
    expect(trace.filter((t) => t === 'stop a')).toHaveLength(1);
  });

  it('a service whose start fails stops the start with an error naming it; those started before it stop, later ones never start', async () => {
    const trace: string[] = [];
    const { host } = newHost(trace);
    host
      .add(recordingService('cache', trace))
      .add(recordingService('broker', trace, { failStart: true }))
      .add(recordingService('server', trace));

    const error = await host.start().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HostStartError);
    expect((error as HostStartError).service).toBe('broker');
    expect((error as Error).message).toMatch(/'broker' failed to start: broker cannot connect/);
    expect(trace).toEqual(['start cache', 'stop cache']);
    expect(host.state).toBe('stopped');
  });

  it('a background service whose execute fails stops the host and reports the failure', async () => {
    const trace: string[] = [];
    const { host } = newHost(trace);
    const worker = new RecordingWorker('worker', trace);
    host.add(worker);
    await host.start();
    const stopped = new Promise<void>((resolve) => host.lifetime.onStopped(resolve));

    worker.fail(new Error('consumer crashed'));
    await stopped;

    expect((await host.stop()).failure).toEqual(new Error('consumer crashed'));
  });
});
