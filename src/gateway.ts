import { hostUsage, runMain } from './host/run-main.js';
import { composeGateway } from './compose/compose-gateway.js';
import { loadGatewayConfig } from './compose/gateway-config.js';

const usage = hostUsage(
  'npm run gateway --',
  'The gateway: reverse proxy and tenant → stamp router in front of hub instances.',
);
await runMain({ name: 'gateway', usage }, loadGatewayConfig, (config, log) => composeGateway(config, log));
