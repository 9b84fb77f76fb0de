import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import {
  APP_CONFIG,
  APPLICATION_LIFETIME,
  CACHES,
  CLOCK,
  FIRMWARE,
  LOGGER,
  OTEL,
  SOCKETIO_TRANSPORT,
  TOKEN_VERIFIER,
  UPGRADE_GUARD,
  WEB_PUBSUB_ENDPOINT,
} from '../../src/compose/app-service-keys.js';
import { hostServices } from '../../src/compose/host-services.js';
import { HostedServices } from '../../src/compose/hosted-services.js';
import { HISTORY, registerHistory } from '../../src/compose/history-wiring.js';
import { TELEMETRY, registerTelemetry } from '../../src/compose/telemetry-services.js';
import { registerSocketIo } from '../../src/compose/socketio-wiring.js';
import { ContainerValidationError } from '../../src/host/container/container-validation-error.js';
import { lateScopes } from '../../src/host/container/service-provider.js';
import { ApplicationLifetime } from '../../src/host/lifecycle/application-lifetime.js';
import { systemClock } from '../../src/host/clock.js';
import { Telemetry } from '../../src/adapters/otel/telemetry.js';
import { DATABASE } from '../../src/features/storage/database.js';
import { startApp, type RunningApp } from '../support/app-harness.js';
import { devConfig } from '../host/support/test-config.js';

let running: RunningApp | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** The registrations every area finds made by the host: configuration, log, clock, lifetime, OpenTelemetry. */
function hostMade() {
  const registrations = hostServices()
    .instance(APP_CONFIG, devConfig())
    .instance(LOGGER, pino({ level: 'silent' }))
    .instance(CLOCK, systemClock)
    .instance(APPLICATION_LIFETIME, new ApplicationLifetime())
    .instance(OTEL, Telemetry.off);
  return { registrations, hosted: new HostedServices(registrations) };
}

describe('the areas registered through the container', () => {
  it('telemetry without the history it reads from is refused at start-up, naming what is missing', () => {
    const { registrations, hosted } = hostMade();
    registerTelemetry(registrations, hosted);
    hosted.seal();

    expect(() => registrations.build()).toThrow(ContainerValidationError);
    expect(() => registrations.build()).toThrow(/'telemetry' depends on 'history', which is not registered/);
  });

  it('history without the database, and socket.io without the token verifier, are named too', () => {
    const { registrations, hosted } = hostMade();
    registerHistory(registrations, hosted, devConfig());
    registerTelemetry(registrations, hosted);
    registerSocketIo(
      registrations,
      'x'.repeat(32),
      lateScopes(() => undefined),
    );
    hosted.seal();

    expect(() => registrations.build()).toThrow(/'history' depends on 'database', which is not registered/);
    expect(() => registrations.build()).toThrow(
      /'socketIoTransport' depends on 'tokenVerifier', which is not registered/,
    );
  });

  it('the composed hub’s parts are the container’s singletons, one instance each', async () => {
    running = await startApp([]);
    const { app } = running;
    const container = app.container!;

    expect(app.telemetry).toBe(container.resolve(TELEMETRY));
    expect(app.history).toBe(container.resolve(HISTORY));
    expect(app.database).toBe(container.resolve(DATABASE));
    expect(app.caches).toBe(container.resolve(CACHES));
    expect(app.firmware).toBe(container.resolve(FIRMWARE));
    expect(app.verifier).toBe(container.resolve(TOKEN_VERIFIER));
    expect(app.upgrades).toBe(container.resolve(UPGRADE_GUARD));
    for (const key of [SOCKETIO_TRANSPORT, WEB_PUBSUB_ENDPOINT]) expect(app.registrations.has(key)).toBe(true);
  });
});
