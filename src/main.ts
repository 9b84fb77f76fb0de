import { composeApplication } from './app/compose-application.js';
import { runMain } from './host/run-main.js';

await runMain(composeApplication);
