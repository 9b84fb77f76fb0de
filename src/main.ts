import { composeApplication } from './app/compose-application.js';
import { loadConfig } from './app/load-app-config.js';
import { runMain } from './host/run-main.js';

await runMain(loadConfig, composeApplication);
