import type { Logger } from 'pino';
import { BackgroundService } from '../host/lifecycle/hosted-service.js';
import { createMqttPublisher } from './mqtt-publisher.js';
import { runSimulator } from './simulator.js';

/** The built-in simulator of `npm start`: the same code as `npm run simulate`, publishing over MQTT. */
export class SimulatorService extends BackgroundService {
  readonly name = 'simulator';

  constructor(
    private readonly options: {
      brokerUrl: () => string;
      /** Set for the embedded broker: the simulator signs each device's token itself. */
      deviceKey?: string | undefined;
      tenant: string;
      devices: number;
      rate: number;
      log: Logger;
    },
  ) {
    super();
  }

  protected async execute(stopping: AbortSignal): Promise<void> {
    const { tenant, devices, rate, log } = this.options;
    const { deviceKey } = this.options;
    const publisher = await createMqttPublisher(this.options.brokerUrl(), {
      clientId: `hub-simulator-${process.pid}`,
      ...(deviceKey !== undefined ? { deviceKey } : {}),
    });
    log.info({ tenant, devices, rate }, 'simulator publishing');
    try {
      await runSimulator({ tenant, devices, rate, publisher, onError: (err) => log.debug({ err }, 'simulator publish failed') }, stopping);
    } finally {
      await publisher.close();
    }
  }
}
