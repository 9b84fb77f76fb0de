import type { Logger } from 'pino';
import { BackgroundService } from '../../host/lifecycle/hosted-service.js';
import type { ReadingPublisher } from './publisher.js';
import { runSimulator } from './simulator.js';

/** The built-in simulator of `npm start`: the same code as `npm run simulate`, through the publisher it is given (MQTT). */
export class SimulatorService extends BackgroundService {
  readonly name = 'simulator';

  constructor(
    private readonly options: {
      /** Connects the publisher once the host runs (the embedded broker listens by then). */
      connect: () => Promise<ReadingPublisher>;
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
    const publisher = await this.options.connect();
    log.info({ tenant, devices, rate }, 'simulator publishing');
    try {
      await runSimulator(
        { tenant, devices, rate, publisher, onError: (err) => log.debug({ err }, 'simulator publish failed') },
        stopping,
      );
    } finally {
      await publisher.close();
    }
  }
}
