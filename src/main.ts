import { composeApplication } from './compose/compose-application.js';
import { loadConfig } from './compose/load-app-config.js';
import { hostUsage, runMain } from './host/run-main.js';

const usage = hostUsage('node dist/src/main.js', 'The hub (npm start runs it in Development).');
await runMain({ name: 'telemetry-hub', usage }, loadConfig, composeApplication);
