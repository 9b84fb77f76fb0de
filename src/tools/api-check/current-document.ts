import { pino } from 'pino';
import { composeApplication } from '../../compose/compose-application.js';
import { loadConfig } from '../../compose/load-app-config.js';
import { openApiDocument } from '../../features/api-docs/openapi-endpoints.js';

/** The hub's public OpenAPI document as the code composes it now (Development defaults; nothing is started). */
export function currentPublicDocument(contentRoot: string): Record<string, unknown> {
  const config = loadConfig({ args: ['--Simulator:Devices=0'], env: { HUB_ENVIRONMENT: 'Development' }, contentRoot });
  const app = composeApplication(config, pino({ level: 'silent' }));
  return openApiDocument(app.web.endpoints, 'public');
}
