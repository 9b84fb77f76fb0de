import { afterEach, describe, expect, it } from 'vitest';
import { HOSTED_SERVICES, HostedServices } from '../../src/compose/hosted-services.js';
import { hostServices } from '../../src/compose/host-services.js';
import { mapBusinessEndpoints, registerOrderServices } from '../../src/compose/orders-wiring.js';
import { WebApplication } from '../../src/host/pipeline/web-application.js';
import { ContainerValidationError } from '../../src/host/container/container-validation-error.js';
import { serviceKey } from '../../src/host/container/service-key.js';
import type { HostedService } from '../../src/host/lifecycle/hosted-service.js';
import { startApp, type RunningApp } from '../support/app-harness.js';
import { pino } from 'pino';
import { systemClock } from '../../src/host/clock.js';
import { devConfig } from '../host/support/test-config.js';

let running: RunningApp | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const noop = (name: string): HostedService => ({ name, start: async () => {}, stop: async () => {} });

describe('hosted services through the container', () => {
  it('are resolved in the order the areas added them, made ones and container-made ones alike', () => {
    const registrations = hostServices();
    const hosted = new HostedServices(registrations);
    const SOURCE = serviceKey<{ label: string }>('source');
    const READER = serviceKey<HostedService>('reader');
    hosted.made(noop('first'));
    hosted.add(READER, [SOURCE], (source) => noop(`reads ${source.label}`));
    hosted.made(noop('last'));
    registrations.instance(SOURCE, { label: 'the source' });
    hosted.seal();

    expect(
      registrations
        .build()
        .resolve(HOSTED_SERVICES)
        .map((s) => s.name),
    ).toEqual(['first', 'reads the source', 'last']);
    expect(() => hosted.made(noop('late'))).toThrow(/added after the container was built/);
  });

  it('refuse at build an area whose dependency nobody registered, naming both', () => {
    // The worker's areas without the database they write through.
    const registrations = hostServices();
    const hosted = new HostedServices(registrations);
    registerOrderServices(registrations, hosted, devConfig(), pino({ level: 'silent' }), systemClock, undefined);
    hosted.seal();

    expect(() => registrations.build()).toThrow(ContainerValidationError);
    expect(() => registrations.build()).toThrow(/'outboxRelay' depends on 'database', which is not registered/);
    expect(() => registrations.build()).toThrow(/'fulfilmentWorker' depends on 'database', which is not registered/);
  });

  it('leave no area unchecked: the business endpoints’ stores without their database are named too', () => {
    const registrations = hostServices();
    const hosted = new HostedServices(registrations);
    registerOrderServices(registrations, hosted, devConfig(), pino({ level: 'silent' }), systemClock, undefined);
    mapBusinessEndpoints(new WebApplication({ development: false }).routes, registrations, devConfig());
    hosted.seal();

    expect(() => registrations.build()).toThrow(/'profileStore' depends on 'database', which is not registered/);
    expect(() => registrations.build()).toThrow(/'orderStore' depends on 'database', which is not registered/);
  });

  it('are what the composed hub starts, in start order, and what extend adds comes after the areas', async () => {
    const started: string[] = [];
    running = await startApp([], (app) => {
      app.hosted.add(serviceKey<HostedService>('fixtureLate'), [serviceKey('database')], () => ({
        name: 'fixture-late',
        start: async () => void started.push('fixture-late'),
        stop: async () => {},
      }));
    });

    const names = running.app.container!.resolve(HOSTED_SERVICES).map((s) => s.name);
    // The order the hub has always started them in (Development: embedded broker, no Redis).
    expect(names).toEqual([
      'telemetry',
      'database',
      'caches',
      'history',
      'queue',
      'outbox-relay',
      'worker',
      'embedded-mqtt-broker',
      'hub',
      'ingestion',
      'fixture-late',
    ]);
    expect(started).toEqual(['fixture-late']);
  });
});
