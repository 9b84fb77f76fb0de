import { runMain } from '../host/run-main.js';
import { composeGateway } from './compose-gateway.js';
import { loadGatewayConfig } from './gateway-config.js';

await runMain(loadGatewayConfig, (config, log) => composeGateway(config, log));
